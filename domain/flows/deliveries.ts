import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import { EVENT_READ_PERMISSIONS, eventDataOf, isEventType, readableEventData } from '../events/index.js';
import { Problem, purgeOlderThan, type Fragment, type Tx } from '../kernel/index.js';
import { recordLabel } from './record-labels.js';

// The rules of one attempt (DESIGN.md, webhook delivery): what its answer means, and how it is signed.

/** What one delivery attempt's answer means (DESIGN.md, webhook delivery). */
export type AttemptVerdict = 'delivered' | 'gone' | 'retry';

export const RESPONSE_EXCERPT_BYTES = 4 * 1024;
export const CONNECT_TIMEOUT_MS = 5_000;
export const ATTEMPT_TIMEOUT_MS = 15_000;

/** 2xx succeeds; 410 stops for good; everything else (3xx included: redirects are not followed) is retried. */
export function verdictForStatus(status: number): AttemptVerdict {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'gone';
  return 'retry';
}

/** `Retry-After` of a 429 or 503, in seconds (delta-seconds or an HTTP date); other statuses ignore it. */
export function retryAfterSeconds(status: number, header: string | undefined, now: Date): number | undefined {
  if ((status !== 429 && status !== 503) || !header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}

/**
 * The Standard Webhooks headers for one attempt. During a secret rotation every live secret signs,
 * and the signatures are sent space-separated, newest first.
 */
export function signedHeaders(secrets: readonly string[], deliveryId: string, attemptedAt: Date, payload: string): Record<string, string> {
  if (secrets.length === 0) throw new Error('no signing secret');
  const signatures = secrets.map((secret) => new Webhook(secret).sign(deliveryId, attemptedAt, payload));
  return {
    'webhook-id': deliveryId,
    'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/**
 * One attempt of a delivery: what the workflow's history keeps (with `retryAfterSeconds`), what the
 * delivery history stores, and what the admin API shows (whose excerpt is null for a viewer who may
 * not read the data). One schema for all three.
 */
export const DeliveryAttempt = z.object({
  attemptedAt: z.string(),
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  responseExcerpt: z.string(),
  error: z.string().nullable(),
  verdict: z.enum(['delivered', 'gone', 'retry']) satisfies z.ZodType<AttemptVerdict>,
});
export type AttemptRecord = z.infer<typeof DeliveryAttempt>;
/** An attempt as the admin API shows it. */
export const ShownDeliveryAttempt = DeliveryAttempt.extend({ responseExcerpt: z.string().nullable() });
type ShownAttempt = z.infer<typeof ShownDeliveryAttempt>;

export interface DeliveryRef {
  shopId: string;
  flowId: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  workflowId: string;
  testRun?: boolean;
  /** What the delivery is about (record-labels.ts); absent in requests of older versions. */
  about?: string | null;
  /** A test-run's sent `data`: a test-run has no stored event to read it from. */
  testData?: unknown;
}

const STATUS_AFTER: Record<AttemptVerdict, string> = { delivered: 'delivered', gone: 'gone', retry: 'retrying' };

/**
 * Housekeeping, in an `asHousekeeping` transaction: attempts of every shop older than the retention
 * (at least one day: the policy's floor), at most `limit` of them, the oldest first.
 */
export function purgeOldAttempts(tx: Tx, retentionDays: number, limit: number): Promise<number> {
  return purgeOlderThan(tx, 'delivery_attempts', 'attempted_at', retentionDays, limit);
}

/**
 * Housekeeping, in an `asHousekeeping` transaction: deliveries of every shop created and last touched
 * before the retention (at least one day: the policy's floor), at most `limit` of them, the oldest
 * first, with what is left of their attempts. A failed one can no longer be resent, so its event may go too.
 */
export async function purgeOldDeliveries(tx: Tx, retentionDays: number, limit: number): Promise<number> {
  const days = Math.max(1, retentionDays);
  const purged = await tx`
    delete from deliveries where delivery_id in (
      select delivery_id from deliveries
      where created_at < now() - make_interval(days => ${days}) and updated_at < now() - make_interval(days => ${days})
      order by created_at limit ${limit})`;
  return purged.count;
}

/**
 * Attempts are kept for the delivery history until housekeeping purges them; the delivery's status
 * follows its latest attempt. Idempotent: the same attempt recorded twice (inline, then by the
 * workflow after a late answer) is one row. An attempt made is no longer the next one: the next is
 * unknown until the workflow notes it (noteNextAttempt). The two writes go out together (one round
 * trip): PostgreSQL runs them in order, and the attempt's foreign key finds the delivery written just before it.
 */
export async function recordAttempt(tx: Tx, delivery: DeliveryRef, attempt: AttemptRecord): Promise<void> {
  const upsertDelivery = tx`
    insert into deliveries (delivery_id, shop_id, flow_id, event_id, event_type, workflow_id, test_run, status, about, test_data)
    values (${delivery.deliveryId}, ${delivery.shopId}, ${delivery.flowId}, ${delivery.eventId}, ${delivery.eventType}, ${delivery.workflowId},
            ${delivery.testRun ?? false}, ${STATUS_AFTER[attempt.verdict]}, ${delivery.about ?? null},
            ${delivery.testData === undefined ? null : tx.json(delivery.testData as never)})
    on conflict (delivery_id) do update set status = excluded.status, workflow_id = excluded.workflow_id, updated_at = now(),
      about = coalesce(excluded.about, deliveries.about), next_attempt_at = null, attempts_left = null`.execute();
  const insertAttempt = tx`
    insert into delivery_attempts (shop_id, delivery_id, attempted_at, status_code, duration_ms, response_excerpt, error, verdict)
    values (${delivery.shopId}, ${delivery.deliveryId}, ${attempt.attemptedAt}, ${attempt.statusCode}, ${attempt.durationMs},
            ${attempt.responseExcerpt}, ${attempt.error}, ${attempt.verdict})
    on conflict (delivery_id, attempted_at) do nothing`.execute();
  await Promise.all([upsertDelivery, insertAttempt]);
}

/** A retrying delivery's next attempt: when, and how many attempts are left counting it (the delivery history shows both). */
export async function noteNextAttempt(tx: Tx, deliveryId: string, next: { at: string; attemptsLeft: number }): Promise<void> {
  await tx`update deliveries set next_attempt_at = ${next.at}, attempts_left = ${next.attemptsLeft} where delivery_id = ${deliveryId}`;
}

/**
 * The workflow of a retrying delivery of the flow, whose wait may end now (a person asks for the next
 * attempt at once). 404 for a delivery of another flow, 409 unless it is retrying.
 */
export async function retryingDeliveryWorkflow(tx: Tx, flowId: string, deliveryId: string): Promise<string> {
  const [row] = await tx<{ status: string; workflowId: string }[]>`
    select status, workflow_id from deliveries where delivery_id = ${deliveryId} and flow_id = ${flowId}`;
  if (!row) throw new Problem('not-found', `no delivery ${deliveryId} of this flow`);
  if (row.status !== 'retrying') throw new Problem('conflict', `only a retrying delivery can be retried now (this one is ${row.status})`);
  return row.workflowId;
}

/** The schedule ran out without a 2xx: the admin may resend it. */
export async function markDeliveryFailed(tx: Tx, deliveryId: string): Promise<void> {
  await tx`update deliveries set status = 'failed', updated_at = now() where delivery_id = ${deliveryId}`;
}

export interface DeliveryHistoryEntry {
  deliveryId: string;
  eventId: string;
  eventType: string;
  status: string;
  testRun: boolean;
  createdAt: string;
  updatedAt: string;
  /** What it was about (record-labels.ts), for a viewer who may read the content; null otherwise or when unknown. */
  about: string | null;
  /** While retrying: when the next attempt is, and how many are left counting it. */
  nextAttemptAt: string | null;
  attemptsLeft: number | null;
  temporalUrl: string;
  attempts: ShownAttempt[];
  /** The event's `data`, only for a viewer holding the event type's read permissions. */
  data?: unknown;
}

/** Which runs of a flow the history shows, and which page of them. */
export interface HistoryFilter {
  status?: string;
  eventType?: string;
  offset?: number;
  limit?: number;
}

/** The latest run of the flow `flowId` (a column of the caller's query) as a scalar subquery: `{ status, createdAt }` or null. */
export function lastDeliveryOf(tx: Tx, flowId: Fragment): Fragment {
  return tx`(select json_build_object('status', d.status, 'createdAt', api_time(d.created_at)) from deliveries d
    where d.flow_id = ${flowId} order by d.created_at desc limit 1)`;
}

/**
 * Whether a person sees a run's content (the event's data, what was sent, the receiver's answers):
 * only with every read permission of its event type, the same rule for the history and a test-run.
 */
export function mayReadContent(eventType: string, viewerPermissions: readonly string[]): boolean {
  const needed: readonly string[] = isEventType(eventType) ? EVENT_READ_PERMISSIONS[eventType] : ['(unknown)'];
  return needed.every((permission) => viewerPermissions.includes(permission));
}

/** An attempt as a person sees it: without the receiver's answer unless they may read the content. */
export function shownAttempt(attempt: ShownAttempt, mayRead: boolean): ShownAttempt {
  return mayRead ? attempt : { ...attempt, responseExcerpt: null };
}

/**
 * A flow's runs, newest first. Anyone who may see the flow sees the runs; the content (the event's
 * data and the receiver's answers) only a viewer who may read that data type, and the data as the
 * flow's account reads it, within what the viewer reads (an order's product names, for example).
 */
export async function deliveryHistory(
  tx: Tx,
  flowId: string,
  viewerPermissions: readonly string[],
  temporalUiUrl: string,
  namespace: string,
  { status, eventType, offset = 0, limit = 50 }: HistoryFilter = {},
): Promise<DeliveryHistoryEntry[]> {
  const rows = await tx<(Omit<DeliveryHistoryEntry, 'temporalUrl'> & { workflowId: string })[]>`
    select d.delivery_id, d.event_id, d.event_type, d.status, d.test_run, d.workflow_id, d.about, d.attempts_left,
      api_time(d.created_at) as created_at, api_time(d.updated_at) as updated_at, api_time(d.next_attempt_at) as next_attempt_at,
      coalesce((select json_agg(json_build_object('attemptedAt', api_time(a.attempted_at), 'statusCode', a.status_code, 'durationMs', a.duration_ms,
                'responseExcerpt', a.response_excerpt, 'error', a.error, 'verdict', a.verdict) order by a.attempted_at)
                from delivery_attempts a where a.delivery_id = d.delivery_id), '[]') as attempts,
      coalesce(d.test_data, ${eventDataOf(tx, tx`d.event_id`)}) as data
    from deliveries d
    where d.flow_id = ${flowId}
      ${status ? tx`and d.status = ${status}` : tx``}
      ${eventType ? tx`and d.event_type = ${eventType}` : tx``}
    order by d.created_at desc, d.delivery_id desc
    limit ${limit} offset ${offset}`;
  const [flow] = await tx<{ permissions: string[] }[]>`select permissions from flows where id = ${flowId}`;
  const reading = (flow?.permissions ?? []).filter((permission) => viewerPermissions.includes(permission));
  return rows.map(({ workflowId, data, about, ...row }) => {
    const mayRead = mayReadContent(row.eventType, viewerPermissions);
    // Deliveries recorded before the label was kept are known by their stored event, while it lasts.
    const label = about ?? (data ? recordLabel(row.eventType, data as Record<string, unknown>) : null);
    return {
      ...row,
      about: mayRead ? label : null,
      temporalUrl: `${temporalUiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`,
      attempts: row.attempts.map((attempt) => shownAttempt(attempt, mayRead)),
      ...(mayRead && data !== null
        ? { data: readableEventData({ type: row.eventType, data: data as Record<string, unknown> }, reading) }
        : {}),
    };
  });
}
