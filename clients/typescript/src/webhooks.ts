import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { EVENT_TYPES, type components, type paths } from './open-api.generated.js';

export { WebhookVerificationError };

type Schemas = components['schemas'];
/** The resource each family of events carries in `data` (spec, Events: Catalogue), as the matching GET answers it. */
interface ResourceOfFamily {
  order: Schemas['Order'];
  product: Schemas['Product'];
  inventory: Schemas['StockRow'];
  customer: Schemas['Customer'];
  shipment: paths['/shipments/{id}']['get']['responses'][200]['content']['application/json'];
  message: Schemas['ChatMessage'];
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
  changes?: EventChanges;
  data: D;
}
/** A known event: narrow on `type` to get `data` typed as its resource. */
export type ShopflowEvent = { [T in EventType]: Envelope<T, ResourceOfFamily[Family<T>]> }[EventType];
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
      const envelope = new Webhook(secret).verify(payload, record) as Envelope<string, unknown>;
      return isEventType(envelope.type) ? (envelope as ShopflowEvent) : { ...envelope, type: 'unknown', receivedType: envelope.type };
    } catch (error) {
      failure = error;
    }
  }
  throw failure instanceof WebhookVerificationError ? failure : new WebhookVerificationError(String(failure));
}

/** Where the ids of handled deliveries are kept: memory, a database table, a cache with expiry. */
export interface SeenStore {
  has(webhookId: string): boolean | Promise<boolean>;
  add(webhookId: string): void | Promise<void>;
}

/** The last `capacity` delivery ids, in memory (one process; lost at restart). */
export function memorySeenStore(capacity = 10_000): SeenStore {
  const ids = new Set<string>();
  return {
    has: (id) => ids.has(id),
    add: (id) => {
      ids.add(id);
      if (ids.size > capacity) ids.delete(ids.values().next().value as string);
    },
  };
}

/**
 * Runs `handle` once per `webhook-id` (delivery is at least once): a delivery already handled is
 * skipped; the id is remembered only after `handle` succeeded, so a failed one is handled again when
 * the sender retries. Returns whether `handle` ran.
 */
export async function handleOnce(store: SeenStore, webhookId: string, handle: () => void | Promise<void>): Promise<boolean> {
  if (await store.has(webhookId)) return false;
  await handle();
  await store.add(webhookId);
  return true;
}
