import { getProduct } from '../catalog/index.js';
import { getMessage } from '../chat/index.js';
import { getCustomer } from '../customers/index.js';
import { needsPage, newEventId, type EventType, type StoredEvent } from '../events/index.js';
import { latestStockRowOf } from '../inventory/index.js';
import { isUuid, Problem, refuseAbsent, type Tx } from '../kernel/index.js';
import { getOrder } from '../orders/index.js';
import { shipmentDetail } from '../shipments/index.js';
import { EVENT_EXAMPLES } from './event-samples.js';

type Reader = (tx: Tx, id: string) => Promise<object | undefined>;

/** A getter that throws 404 `not-found` for an absent record, as a reader answering undefined. */
const orAbsent =
  (get: (tx: Tx, id: string) => Promise<object>): Reader =>
  async (tx, id) => {
    try {
      return await get(tx, id);
    } catch (error) {
      if (error instanceof Problem && error.code === 'not-found') return undefined;
      throw error;
    }
  };

/**
 * The record a person may choose for a test-run, by the family of the event type, in its `GET` shape
 * (as real events carry it): for stock, the chosen variant's row changed last.
 */
const RECORDS: Record<string, { noun: string; read: Reader }> = {
  order: { noun: 'order', read: orAbsent(getOrder) },
  product: { noun: 'product', read: orAbsent(getProduct) },
  inventory: { noun: 'variant with stock', read: latestStockRowOf },
  customer: { noun: 'customer', read: orAbsent(getCustomer) },
  shipment: { noun: 'shipment', read: shipmentDetail },
  message: { noun: 'message', read: getMessage },
};

/** What a test-run's event is made for: the flow's trigger, and the chat page it listens to. */
export interface TestRunFlow {
  eventType: string;
  pageId: string | null;
}

/** The chosen record of the flow's family, or 400 `validation-failed` when the shop has none by that id (or, for messages, not on the flow's page). */
async function chosenRecord(tx: Tx, flow: TestRunFlow, recordId: string): Promise<Record<string, unknown>> {
  const { noun, read } = RECORDS[flow.eventType.split('.')[0]!]!;
  const record = isUuid(recordId) ? ((await read(tx, recordId)) as Record<string, unknown> | undefined) : undefined;
  // A message flow receives its own page's messages only: the same holds for its test-runs.
  const onThePage = !needsPage(flow.eventType as EventType) || record?.pageId === flow.pageId;
  refuseAbsent(record && onThePage ? [] : [{ path: 'recordId', noun, id: recordId }]);
  return record!;
}

/**
 * A test event of the flow's trigger type, marked `test`: the catalogue's made-up example (a message
 * one on the flow's own page), or the record the person chose by `recordId`. With a chosen record,
 * `changes` names the fields of the example's edit and a status change goes from and to the record's
 * status (what it was before is not known).
 */
export async function testEvent(tx: Tx, flow: TestRunFlow, recordId?: string): Promise<StoredEvent> {
  const type = flow.eventType as EventType;
  const example = EVENT_EXAMPLES[type];
  const sample = needsPage(type) && flow.pageId ? { ...example.data, pageId: flow.pageId } : example.data;
  const data = recordId === undefined ? sample : await chosenRecord(tx, flow, recordId);
  const changes =
    recordId !== undefined && example.changes?.status
      ? { ...example.changes, status: { from: data.status, to: data.status } }
      : example.changes;
  return { id: newEventId(), type, createdAt: new Date(), changes, data, test: true };
}
