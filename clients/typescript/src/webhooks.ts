import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { RowOf } from './client.js';
import { EVENT_TYPES, type paths } from './open-api.generated.js';

export { WebhookVerificationError };

/** What `GET path` answers. */
type Answer<P extends keyof paths> = paths[P] extends { get: { responses: { 200: { content: { 'application/json': infer Body } } } } }
  ? Body
  : never;
/**
 * The resource each family of events carries in `data` (spec, Events: Catalogue), as the matching GET
 * answers it: read from the paths, whose names stay when the document renames its schemas.
 */
interface ResourceOfFamily {
  order: Answer<'/orders/{id}'>;
  product: Answer<'/products/{id}'>;
  inventory: RowOf<'/inventory/stock'>;
  customer: Answer<'/customers/{id}'>;
  shipment: Answer<'/shipments/{id}'>;
  message: RowOf<'/conversations/{id}/messages'>;
}
export type EventType = (typeof EVENT_TYPES)[number];
type Family<T extends EventType> = T extends `${infer F extends keyof ResourceOfFamily}.${string}` ? F : never;

/** What changed, on update events: the names of the changed `data` fields, and the status move when there was one. */
export interface EventChanges {
  fields: string[];
  status?: { from: string; to: string };
}
interface Envelope<T extends string, D> {
  /** The event id (`evt_…`), the same in every flow that receives the event. */
  id: string;
  type: T;
  apiVersion: string;
  createdAt: string;
  shop: { id: string; slug: string };
  /**
   * True for a test event, sent by a flow's test-run: its `data` is made up, unless the person
   * starting it chose a real record. Real events have no `test` field in their envelope: false here.
   */
  test: boolean;
  changes?: EventChanges;
  data: D;
}
/** The envelope as sent: `test` only on test events. */
type SentEnvelope = Omit<Envelope<string, unknown>, 'test'> & { test?: boolean };
/** A known event: narrow on `type` to get `data` typed as its resource. */
export type ShopflowEvent = { [T in EventType]: Envelope<T, ResourceOfFamily[Family<T>]> }[EventType];
/** The event of type `T`, for example `EventOf<'order.created'>['data']` for an order as events carry it. */
export type EventOf<T extends EventType> = Extract<ShopflowEvent, { type: T }>;
/** An event type added after this kit was built (spec, Events: receivers ignore unknown types); its own type is in `receivedType`. */
export type UnknownEvent = Envelope<'unknown', unknown> & { receivedType: string };
export type WebhookEvent = ShopflowEvent | UnknownEvent;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const isEventType = (type: string): type is EventType => (EVENT_TYPES as readonly string[]).includes(type);

function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  return Object.fromEntries(
    entries.flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
}

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against the raw body with any of `secrets` (the flow's `whsec_…` secret; two
 * during a rotation), and refuses a timestamp more than 5 minutes away. Returns the event, typed by
 * its `type`; throws `WebhookVerificationError` when no secret verifies it.
 */
export function verifyWebhook(secrets: string | readonly string[], headers: WebhookHeaders, rawBody: string | Uint8Array): WebhookEvent {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new WebhookVerificationError('No signing secret given');
  const payload = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody);
  const record = headerRecord(headers);
  let failure: unknown;
  for (const secret of list) {
    try {
      const sent = new Webhook(secret).verify(payload, record) as SentEnvelope;
      const envelope = { ...sent, test: sent.test === true };
      return isEventType(envelope.type) ? (envelope as ShopflowEvent) : { ...envelope, type: 'unknown', receivedType: envelope.type };
    } catch (error) {
      failure = error;
    }
  }
  throw failure instanceof WebhookVerificationError ? failure : new WebhookVerificationError(String(failure));
}

/** What a claim of a `webhook-id` found: this caller runs the handler, another is running it, or it was handled. */
export type ClaimResult = 'claimed' | 'in-flight' | 'done';

/**
 * Where `handleOnce` records deliveries by `webhook-id`: memory, a database table, a cache with
 * expiry. `claim` must be one atomic check-and-set (an insert that fails on a duplicate key, Redis
 * `SET NX`): of two duplicates arriving together, only one may get `'claimed'`. A store shared by
 * several processes should let an in-flight claim expire after the longest a handler runs, since a
 * process that dies while handling never releases it.
 */
export interface WebhookIdStore {
  /** Marks `webhookId` in flight unless it is in flight or done already, in one step. */
  claim(webhookId: string): ClaimResult | Promise<ClaimResult>;
  /** The handler succeeded: `webhookId` is done for good. */
  complete(webhookId: string): void | Promise<void>;
  /** The handler failed: the claim is dropped, so the sender's retry runs it again. */
  release(webhookId: string): void | Promise<void>;
}

/**
 * The earlier store: a check (`has`) and a record (`add`) that are not one atomic step. `handleOnce`
 * still takes it, and keeps a delivery in flight in this process between the two, so duplicates
 * are handled once per process only.
 * @deprecated Implement `WebhookIdStore`, whose `claim` is atomic across processes.
 */
export interface SeenStore {
  has(webhookId: string): boolean | Promise<boolean>;
  add(webhookId: string): void | Promise<void>;
}

/**
 * The last `capacity` handled delivery ids and those in flight, in memory (one process; lost at
 * restart). It is also a `SeenStore`, for code written against the earlier interface.
 */
export function memorySeenStore(capacity = 10_000): WebhookIdStore & SeenStore {
  const states = new Map<string, 'in-flight' | 'done'>();
  const done = (id: string) => {
    // Inserted again at the end: the oldest handled id is forgotten first, never one in flight.
    states.delete(id);
    states.set(id, 'done');
    if (states.size <= capacity) return;
    for (const [oldest, state] of states) {
      if (state === 'done') {
        states.delete(oldest);
        return;
      }
    }
  };
  return {
    claim: (id) => {
      const state = states.get(id);
      if (state) return state;
      states.set(id, 'in-flight');
      return 'claimed';
    },
    complete: done,
    release: (id) => {
      if (states.get(id) === 'in-flight') states.delete(id);
    },
    has: (id) => states.get(id) === 'done',
    add: done,
  };
}

/** The ids each `SeenStore` has in flight in this process. */
const seenInFlight = new WeakMap<SeenStore, Set<string>>();

/** A `SeenStore` as a `WebhookIdStore`: the in-flight state is this process's. */
function asWebhookIdStore(store: WebhookIdStore | SeenStore): WebhookIdStore {
  if ('claim' in store) return store;
  const inFlight = seenInFlight.get(store) ?? new Set<string>();
  seenInFlight.set(store, inFlight);
  return {
    claim: async (id) => {
      if (inFlight.has(id)) return 'in-flight';
      // Before the first await: a duplicate arriving while `has` runs finds it in flight.
      inFlight.add(id);
      try {
        if (!(await store.has(id))) return 'claimed';
      } catch (error) {
        inFlight.delete(id);
        throw error;
      }
      inFlight.delete(id);
      return 'done';
    },
    complete: async (id) => {
      await store.add(id);
      inFlight.delete(id);
    },
    release: (id) => {
      inFlight.delete(id);
    },
  };
}

/**
 * Runs `handle` once per `webhook-id` (delivery is at least once), and says what happened: `'handled'`
 * when it ran and succeeded, `'in-flight'` when a duplicate is running it now, `'done'` when it was
 * handled before. When `handle` throws, the claim is released (the sender's retry runs it again) and
 * the error is thrown.
 */
export async function handleWebhookOnce(
  store: WebhookIdStore | SeenStore,
  webhookId: string,
  handle: () => void | Promise<void>,
): Promise<'handled' | 'in-flight' | 'done'> {
  const ids = asWebhookIdStore(store);
  const claim = await ids.claim(webhookId);
  if (claim !== 'claimed') return claim;
  try {
    await handle();
    await ids.complete(webhookId);
  } catch (error) {
    await ids.release(webhookId);
    throw error;
  }
  return 'handled';
}

/**
 * Runs `handle` once per `webhook-id`; returns whether it ran. Two duplicates arriving together run it
 * once; a failed run releases the id, so the sender's retry runs it again.
 */
export async function handleOnce(
  store: WebhookIdStore | SeenStore,
  webhookId: string,
  handle: () => void | Promise<void>,
): Promise<boolean> {
  return (await handleWebhookOnce(store, webhookId, handle)) === 'handled';
}
