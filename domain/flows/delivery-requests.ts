import { assertMayGrant, shopIdentity, writeShopLogs } from '../access/index.js';
import { Problem, seal, type Sealed } from '../kernel/index.js';
import { envelope, EVENT_READ_PERMISSIONS, isEventType, readableEventData, storedEvent } from '../events/index.js';
import type { EventType, RelayedEvent, StoredEvent } from '../events/index.js';
import { assertConditionFits } from './condition-fields.js';
import { z } from 'zod';
import { compileCondition, ConditionBudgetExceeded, ConditionReading, conditionVerdict, flowConditionSchema } from './flow-conditions.js';
import type { CompiledCondition, FlowCondition } from './flow-conditions.js';
import { mayReadContent } from './deliveries.js';
import { testEvent } from './flow-samples.js';
import { deliveryIdFor, getFlow, matchingFlows, type Flow, type MatchedFlow } from './flows.js';
import { recordLabel } from './record-labels.js';
import type { Tx } from '../kernel/index.js';

/** What a delivery workflow is started with: one event, signed for one flow's HTTP-send block. */
export interface DeliveryRequest {
  shopId: string;
  flowId: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  url: string;
  payload: string;
  /** What the run is about, for operators reading it in the Temporal UI (its summary); absent in requests of older versions. */
  about?: DeliveryAbout;
}

/** The shop's slug, the flow's name and what the record is known by (record-labels.ts; null when the event's data has nothing of it). */
export interface DeliveryAbout {
  shopSlug: string;
  flowName: string;
  record: string | null;
}

/**
 * A delivery request with `seal` (domain/kernel/seals.ts), under the server-side `WORKFLOW_SEAL_KEY`:
 * whoever can start a workflow could otherwise have the worker sign any body for any address. The
 * relay, the admin API and the CLI seal what they start for its run (`workflowId`); the worker acts
 * on nothing whose seal does not verify there (activities/sealed-activities.ts). Without a run, the
 * request names its own: `delivery:<flowId>:<eventId>`, the one delivery of its event to its flow.
 */
export function sealDeliveryRequest<T extends DeliveryRequest>(key: string, request: T, workflowId?: string): Sealed<T> {
  return seal(key, request, workflowId);
}

/** One event for one flow: the envelope rendered for the flow's account, and the flow's `webhook-id` for it. */
function deliveryRequest(
  shop: { id: string; slug: string },
  flow: { id: string; name: string; url: string; permissions: readonly string[] },
  event: StoredEvent,
): DeliveryRequest {
  return {
    about: { shopSlug: shop.slug, flowName: flow.name, record: recordLabel(event.type, event.data) },
    shopId: shop.id,
    flowId: flow.id,
    eventId: event.id,
    eventType: event.type,
    deliveryId: deliveryIdFor(flow.id, event.id),
    url: flow.url,
    payload: envelope(event, shop, flow.permissions),
  };
}

/** What a flow's condition reads of an event: `data` as the flow's account may read it (a condition reveals nothing more), and `changes`. */
const conditionSubject = (event: StoredEvent, permissions: readonly string[]) => ({
  data: readableEventData(event, permissions),
  changes: event.changes,
});

/** Each flow's condition compiled once, while it stays as it was (flows keyed by id, the condition by its text). */
const compiledConditions = new Map<string, { text: string; test: CompiledCondition }>();
const COMPILED_KEPT = 10_000;

function compiledFor(flow: MatchedFlow & { condition: FlowCondition }): CompiledCondition {
  const text = JSON.stringify(flow.condition);
  const kept = compiledConditions.get(flow.id);
  if (kept?.text === text) return kept.test;
  // A stored condition no version of the save check took (written by hand, or by older code) is named in the error the operator reads.
  const read = flowConditionSchema.safeParse(flow.condition);
  if (!read.success) throw new Error(`flow ${flow.id} has a stored condition the relay cannot read: ${z.prettifyError(read.error)}`);
  const test = compileCondition(read.data);
  if (compiledConditions.size >= COMPILED_KEPT) compiledConditions.delete(compiledConditions.keys().next().value!);
  compiledConditions.set(flow.id, { text, test });
  return test;
}

/** An outbox event with the flows listening to it, as read from the database: what matching works on, without it. */
export interface EventMatch {
  shop: { id: string; slug: string };
  /** With the trace of the work that wrote it, which its deliveries continue. */
  event: StoredEvent & Pick<RelayedEvent, 'traceParent'>;
  flows: MatchedFlow[];
}

/** The event `eventId` (the current shop's) and the flows listening to it; undefined once the event is gone. */
export async function eventMatch(tx: Tx, eventId: string): Promise<EventMatch | undefined> {
  const event = await storedEvent(tx, eventId);
  if (!event) return undefined;
  return { shop: { id: event.shopId, slug: event.shopSlug }, event, flows: await matchingFlows(tx, event) };
}

/**
 * How long matching runs before it lets the event loop take other work (another shop's event, a
 * worker's activation): a condition takes at most a few milliseconds within CONDITION_BUDGET, fifty
 * of them on a product of 2,048 variants a few hundred.
 */
const MATCHING_SLICE_MS = 5;

/**
 * The deliveries an event makes: one request per flow whose condition holds, each condition tested on
 * what its account reads (the paths read once per distinct account, shared by its flows), and the flows
 * whose condition does not hold. No database work: the relay runs it outside any transaction, in
 * slices of MATCHING_SLICE_MS so that one shop's costly flows do not hold another shop's event back.
 * Throws ConditionBudgetExceeded when a condition would read more than its budget.
 */
export async function matchEvent(match: EventMatch): Promise<{ requests: DeliveryRequest[]; skipped: MatchedFlow[] }> {
  const readings = new Map<string, ConditionReading>();
  const readingFor = (permissions: readonly string[]) => {
    const key = permissions.join(' ');
    let reading = readings.get(key);
    if (!reading) readings.set(key, (reading = new ConditionReading(conditionSubject(match.event, permissions))));
    return reading;
  };
  const requests: DeliveryRequest[] = [];
  const skipped: MatchedFlow[] = [];
  let sliceStarted = performance.now();
  for (const flow of match.flows) {
    if (performance.now() - sliceStarted > MATCHING_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStarted = performance.now();
    }
    const holds = flow.condition === null || compiledFor({ ...flow, condition: flow.condition })(readingFor(flow.permissions));
    if (holds) requests.push(deliveryRequest(match.shop, flow, match.event));
    else skipped.push(flow);
  }
  return { requests, skipped };
}

/** The shop log's record of the runs that stopped at their Condition block. */
export async function recordSkippedRuns(tx: Tx, match: EventMatch, skipped: readonly MatchedFlow[]): Promise<void> {
  await writeShopLogs(
    tx,
    skipped.map((flow) => ({
      shopId: match.shop.id,
      actorUserId: null,
      action: 'flow.run_skipped',
      subjectType: 'flow',
      subjectId: flow.id,
      details: { eventType: match.event.type, eventId: match.event.id, reason: 'the condition did not hold' },
    })),
  );
}

/**
 * One outbox event's deliveries, in one transaction of the current shop (tests and the bench; the relay
 * runs the three steps apart): a request per matching flow whose condition holds; none once the event
 * is gone. A flow whose condition does not hold stops at its Condition block before any workflow
 * starts, and the shop log records the skipped run.
 */
export async function requestsForEvent(tx: Tx, eventId: string): Promise<DeliveryRequest[]> {
  const match = await eventMatch(tx, eventId);
  if (!match) return [];
  const { requests, skipped } = await matchEvent(match);
  await recordSkippedRuns(tx, match, skipped);
  return requests;
}

/**
 * The builder's unsaved edits a test-run uses instead of the saved flow's (the address checked by the
 * caller, as on save); `eventType` is the type to test, one of the (drafted) `eventTypes` when they are given.
 */
export type TestRunDraft = Partial<Pick<Flow, 'name' | 'url' | 'eventType' | 'eventTypes' | 'condition' | 'pageId' | 'permissions'>>;

/** A test-run's request, and whether the test event passes the flow's condition (null: no condition): a real event like it would be skipped when not. */
export interface TestRun {
  request: DeliveryRequest;
  condition: { holds: boolean; rules: boolean[] } | null;
}

/**
 * A test-run: a test event of the flow's trigger type (made up, or the record `recordId` names),
 * rendered, and its condition tested, for what both the flow's account and the person starting it
 * (`viewer`: their permissions, or the operator) may read; a drafted account must be one the person
 * may grant. Choosing a real record needs the type's read permissions on both sides
 * (403 `insufficient-permission` otherwise), as the record is then what is sent and shown. `draft`
 * is the flow as the builder shows it, unsaved changes included: what is tested is what is on screen.
 */
export async function testRunRequest(
  tx: Tx,
  shopId: string,
  flowId: string,
  viewer: readonly string[] | 'operator',
  recordId?: string,
  draft: TestRunDraft = {},
): Promise<TestRun> {
  const edits = Object.fromEntries(Object.entries(draft).filter(([, value]) => value !== undefined)) as TestRunDraft;
  const saved = await getFlow(tx, flowId);
  const flow = { ...saved, ...edits, eventType: edits.eventType ?? edits.eventTypes?.[0] ?? saved.eventType };
  if (!isEventType(flow.eventType) || (edits.eventTypes && !edits.eventTypes.includes(flow.eventType)))
    throw new Problem('validation-failed', `${flow.eventType} is not one of the flow's event types`, {
      errors: [{ path: 'eventType', message: "must be one of the flow's event types" }],
    });
  if (edits.condition) assertConditionFits(edits.condition, flow.eventTypes);
  // A drafted account is held to what the person may grant, as on save (403 insufficient-permission).
  if (edits.permissions) assertMayGrant(edits.permissions, viewer);
  const permissions = viewer === 'operator' ? flow.permissions : flow.permissions.filter((permission) => viewer.includes(permission));
  if (recordId !== undefined && !mayReadContent(flow.eventType, permissions)) {
    const needed = EVENT_READ_PERMISSIONS[flow.eventType as EventType].join(' and ');
    throw new Problem('insufficient-permission', `a test-run with a real record needs ${needed}, for you and for the flow's account`);
  }
  const event = await testEvent(tx, flow, recordId);
  const request = deliveryRequest(await shopIdentity(tx, shopId), { ...flow, permissions }, event);
  // The verdict reads what the request renders: the condition tells nothing the person may not read.
  return { request, condition: flow.condition && testRunVerdict(flow.condition, conditionSubject(event, permissions)) };
}

/** The verdict a test-run shows; a condition past its budget on this record is refused as on save (400). */
function testRunVerdict(condition: FlowCondition, subject: ReturnType<typeof conditionSubject>): TestRun['condition'] {
  try {
    return conditionVerdict(condition, subject);
  } catch (error) {
    if (error instanceof ConditionBudgetExceeded) throw new Problem('validation-failed', error.message);
    throw error;
  }
}

/**
 * Resends of one flow's deliveries of `eventIds` (a batch's page, found failed in this transaction):
 * what `resendRequest` makes of each, the flow read once; one whose event is gone (purged) is left out.
 */
export async function resendRequestsOf(tx: Tx, flowId: string, eventIds: readonly string[]): Promise<DeliveryRequest[]> {
  const flow = await getFlow(tx, flowId);
  const requests: DeliveryRequest[] = [];
  for (const eventId of eventIds) {
    const event = await storedEvent(tx, eventId);
    if (event) requests.push(deliveryRequest({ id: event.shopId, slug: event.shopSlug }, flow, event));
  }
  return requests;
}

/**
 * A resend of a failed delivery: the same event and `webhook-id`, to the flow's current address.
 * 404 for a delivery of another flow (or a test-run), 409 unless it has failed.
 */
export async function resendRequest(tx: Tx, flowId: string, deliveryId: string): Promise<DeliveryRequest> {
  const flow = await getFlow(tx, flowId);
  const [row] = await tx<{ status: string; eventId: string }[]>`
    select d.status, d.event_id from deliveries d
    where d.delivery_id = ${deliveryId} and d.flow_id = ${flowId} and not d.test_run`;
  const event = row && (await storedEvent(tx, row.eventId));
  if (!row || !event) throw new Problem('not-found', `no delivery ${deliveryId} of this flow`);
  if (row.status !== 'failed') throw new Problem('conflict', `only a failed delivery can be resent (this one is ${row.status})`);
  return deliveryRequest({ id: event.shopId, slug: event.shopSlug }, flow, event);
}
