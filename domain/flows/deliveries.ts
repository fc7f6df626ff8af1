import { z } from 'zod';
import { EVENT_READ_PERMISSIONS, eventDataOf, isEventType } from '../events/index.js';
import type { AttemptVerdict } from './webhook-delivery.js';
import type { Tx } from '../kernel/index.js';

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

export interface DeliveryRef {
  shopId: string;
  flowId: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  workflowId: string;
  testRun?: boolean;
}

const STATUS_AFTER: Record<AttemptVerdict, string> = { delivered: 'delivered', gone: 'gone', retry: 'retrying' };

/**
 * Housekeeping, in an `asHousekeeping` transaction: attempts older than the retention (at least one
 * day: the policy's floor), of every shop. The deliveries stay, with their status.
 */
export async function purgeOldAttempts(tx: Tx, retentionDays: number): Promise<number> {
  const purged = await tx`delete from delivery_attempts where attempted_at < now() - make_interval(days => ${Math.max(1, retentionDays)})`;
  return purged.count;
}

/**
 * Attempts are kept for the delivery history until housekeeping purges them; the delivery's status
 * follows its latest attempt. Idempotent: the same attempt recorded twice (inline, then by the
 * workflow after a late answer) is one row. The two writes go out together (one round trip): PostgreSQL
 * runs them in order, and the attempt's foreign key finds the delivery written just before it.
 */
export async function recordAttempt(tx: Tx, delivery: DeliveryRef, attempt: AttemptRecord): Promise<void> {
  const upsertDelivery = tx`
    insert into deliveries (delivery_id, shop_id, flow_id, event_id, event_type, workflow_id, test_run, status)
    values (${delivery.deliveryId}, ${delivery.shopId}, ${delivery.flowId}, ${delivery.eventId}, ${delivery.eventType}, ${delivery.workflowId},
            ${delivery.testRun ?? false}, ${STATUS_AFTER[attempt.verdict]})
    on conflict (delivery_id) do update set status = excluded.status, workflow_id = excluded.workflow_id, updated_at = now()`.execute();
  const insertAttempt = tx`
    insert into delivery_attempts (shop_id, delivery_id, attempted_at, status_code, duration_ms, response_excerpt, error, verdict)
    values (${delivery.shopId}, ${delivery.deliveryId}, ${attempt.attemptedAt}, ${attempt.statusCode}, ${attempt.durationMs},
            ${attempt.responseExcerpt}, ${attempt.error}, ${attempt.verdict})
    on conflict (delivery_id, attempted_at) do nothing`.execute();
  await Promise.all([upsertDelivery, insertAttempt]);
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
  temporalUrl: string;
  attempts: z.infer<typeof ShownDeliveryAttempt>[];
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

/** Each flow's latest run (the flows list). */
export async function lastDeliveries(tx: Tx): Promise<Map<string, { status: string; createdAt: string }>> {
  const rows = await tx<{ flowId: string; status: string; createdAt: string }[]>`
    select distinct on (flow_id) flow_id, status, api_time(created_at) as created_at
    from deliveries order by flow_id, created_at desc`;
  return new Map(rows.map(({ flowId, ...last }) => [flowId, last]));
}

/**
 * A flow's runs, newest first. Anyone who may see the flow sees the runs; the content (the event's
 * data and the receiver's answers) only a viewer who may read that data type.
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
    select d.delivery_id, d.event_id, d.event_type, d.status, d.test_run, d.workflow_id,
      api_time(d.created_at) as created_at, api_time(d.updated_at) as updated_at,
      coalesce((select json_agg(json_build_object('attemptedAt', api_time(a.attempted_at), 'statusCode', a.status_code, 'durationMs', a.duration_ms,
                'responseExcerpt', a.response_excerpt, 'error', a.error, 'verdict', a.verdict) order by a.attempted_at)
                from delivery_attempts a where a.delivery_id = d.delivery_id), '[]') as attempts,
      ${eventDataOf(tx, tx`d.event_id`)} as data
    from deliveries d
    where d.flow_id = ${flowId}
      ${status ? tx`and d.status = ${status}` : tx``}
      ${eventType ? tx`and d.event_type = ${eventType}` : tx``}
    order by d.created_at desc, d.delivery_id desc
    limit ${limit} offset ${offset}`;
  return rows.map(({ workflowId, data, ...row }) => {
    const needed: readonly string[] = isEventType(row.eventType) ? EVENT_READ_PERMISSIONS[row.eventType] : ['(unknown)'];
    const mayRead = needed.every((permission) => viewerPermissions.includes(permission));
    return {
      ...row,
      temporalUrl: `${temporalUiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`,
      attempts: mayRead ? row.attempts : row.attempts.map((attempt) => ({ ...attempt, responseExcerpt: null })),
      ...(mayRead && data !== null ? { data } : {}),
    };
  });
}
