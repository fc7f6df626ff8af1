import { writeShopLog, type Actor } from '../access/index.js';
import { Problem, type Tx } from '../kernel/index.js';
import { resendRequestsOf, type DeliveryRequest } from './delivery-requests.js';

/**
 * Recovery in one step: every failed delivery of a flow since a time, resent as one batch, paced.
 * The pace is deliveries per minute: `defaultPerMinute` unless the admin chooses, never more than
 * `maxPerMinute` (10 a second: a receiver back from an outage is not flooded, and the batch's
 * workflow starts at most 10 children per timer).
 */
export const RECOVERY_PACE = { defaultPerMinute: 60, maxPerMinute: 600 } as const;

/**
 * The deliveries a batch resends: the flow's, created since `since`, that had failed when the batch
 * started (`until`). One that fails only later (it was retrying then) is not in it, so the count
 * found at the start holds for the whole batch.
 */
export interface RecoveryWindow {
  flowId: string;
  since: string;
  until: string;
}

/** Where a batch is in its window: past this delivery, in creation order (the delivery id breaks ties). */
export interface RecoveryCursor {
  createdAt: string;
  deliveryId: string;
}

/**
 * A batch's `since`: not in the future, and within what is kept of deliveries and their events (a
 * resend sends the stored event, kept `retentionDays`). 400 `validation-failed` on `since` otherwise.
 */
export function checkRecoverySince(since: Date, now: Date, retentionDays: number): void {
  const oldest = new Date(now.getTime() - retentionDays * 24 * 60 * 60 * 1000);
  const problem =
    since > now ? 'must not be in the future' : since < oldest ? `must be within the last ${retentionDays} days (what is kept)` : null;
  if (problem) throw new Problem('validation-failed', `since ${problem}`, { errors: [{ path: 'since', message: problem }] });
}

const inWindow = (tx: Tx, window: RecoveryWindow) => tx`
  d.flow_id = ${window.flowId} and not d.test_run and d.status = 'failed'
  and d.created_at >= ${window.since} and d.updated_at <= ${window.until}`;

/** How many failed deliveries the window holds now (the batch's "found", the shop log's count). */
export async function countFailedDeliveries(tx: Tx, window: RecoveryWindow): Promise<number> {
  const [row] = await tx<{ count: number }[]>`select count(*)::int as count from deliveries d where ${inWindow(tx, window)}`;
  return row!.count;
}

/**
 * The next `limit` failed deliveries of the window after `after`, each as its resend's request (the
 * same event and `webhook-id` as a single resend); `passed` counts the ones looked at, one whose event
 * is gone included, and `cursor` is where the next page starts (null: none left).
 */
export async function nextFailedDeliveries(
  tx: Tx,
  window: RecoveryWindow,
  after: RecoveryCursor | null,
  limit: number,
): Promise<{ requests: DeliveryRequest[]; passed: number; cursor: RecoveryCursor | null }> {
  const rows = await tx<(RecoveryCursor & { eventId: string })[]>`
    select d.created_at::text as created_at, d.delivery_id, d.event_id from deliveries d
    where ${inWindow(tx, window)}
      ${after ? tx`and (d.created_at, d.delivery_id) > (${after.createdAt}::timestamptz, ${after.deliveryId})` : tx``}
    order by d.created_at, d.delivery_id
    limit ${limit}`;
  const requests = await resendRequestsOf(
    tx,
    window.flowId,
    rows.map((row) => row.eventId),
  );
  const last = rows.at(-1);
  return {
    requests,
    passed: rows.length,
    cursor: rows.length === limit && last ? { createdAt: last.createdAt, deliveryId: last.deliveryId } : null,
  };
}

/** The shop log's record of a batch started: who, which flow, since when, at what pace, and how many it found. */
export async function logRecoveryStarted(
  tx: Tx,
  entry: { shopId: string; actor: Actor; flowId: string; since: string; perMinute: number; found: number; workflowId: string },
): Promise<void> {
  const { shopId, actor, flowId, ...details } = entry;
  await writeShopLog(tx, { shopId, actorUserId: actor, action: 'flow.recovery_started', subjectType: 'flow', subjectId: flowId, details });
}
