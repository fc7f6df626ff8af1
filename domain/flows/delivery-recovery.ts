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
 * A shop's share of recovery: batches running at once (one per flow), and their paces together,
 * within what one batch may take (RECOVERY_PACE.maxPerMinute), whatever the number of flows.
 */
export const RECOVERY_SHARE = { runningPerShop: 3, perMinutePerShop: RECOVERY_PACE.maxPerMinute } as const;

/** A batch the shop started that had not been found ended. */
export interface OpenRecovery {
  workflowId: string;
  flowId: string;
  since: Date;
  perMinute: number;
}

/**
 * The shop's batches not yet found ended, its recovery rows locked until the caller's transaction
 * ends: two starts at once take turns, so neither can pass the share on what the other has not written.
 */
export async function openRecoveries(tx: Tx, shopId: string): Promise<OpenRecovery[]> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`delivery-recovery:${shopId}`}, 0))`;
  return tx<OpenRecovery[]>`
    select workflow_id, flow_id, since, per_minute from delivery_recoveries where ended_at is null order by started_at`;
}

/** Batches found ended (Temporal no longer runs them): they no longer count against the share. */
export async function markRecoveriesEnded(tx: Tx, workflowIds: readonly string[]): Promise<void> {
  if (workflowIds.length > 0)
    await tx`update delivery_recoveries set ended_at = now() where workflow_id = any(${workflowIds as string[]}) and ended_at is null`;
}

/**
 * Whether a new batch of `flowId` from `since` at `perMinute` may start beside the shop's `running`
 * batches: `join` when the same batch runs; 409 `conflict` when another batch of the flow runs (with
 * its `workflowId`), when the shop runs RECOVERY_SHARE.runningPerShop batches, or when the pace does
 * not fit in what is left of the shop's; 409 too for a flow that is not on (its resends would go to
 * an address no delivery uses now).
 */
export function recoveryAdmission(
  flow: { state: string; httpEnabled: boolean },
  running: readonly OpenRecovery[],
  batch: { flowId: string; since: string; perMinute: number },
): 'start' | 'join' {
  const same = running.find((recovery) => recovery.flowId === batch.flowId);
  if (same && same.since.getTime() === new Date(batch.since).getTime()) return 'join';
  if (same)
    throw new Problem(
      'conflict',
      `a resend of this flow's failed deliveries since ${same.since.toISOString()} is running; wait for it to end`,
      {
        extra: { workflowId: same.workflowId },
      },
    );
  if (flow.state !== 'on' || !flow.httpEnabled)
    throw new Problem('conflict', 'the flow is not on: switch it on (with its HTTP-send block) before resending its deliveries');
  if (running.length >= RECOVERY_SHARE.runningPerShop)
    throw new Problem('conflict', `the shop already resends the deliveries of ${running.length} flows; wait for one to end`, {
      extra: { workflowIds: running.map((recovery) => recovery.workflowId) },
    });
  const left = RECOVERY_SHARE.perMinutePerShop - running.reduce((sum, recovery) => sum + recovery.perMinute, 0);
  if (batch.perMinute > left)
    throw new Problem(
      'conflict',
      `the shop's running resends leave ${left} a minute of its ${RECOVERY_SHARE.perMinutePerShop}: choose a slower pace`,
      {
        errors: [{ path: 'perMinute', message: `at most ${left} while the shop's other resends run` }],
      },
    );
  return 'start';
}

/**
 * The flow's latest batch: one not yet found ended first, else the one started last; null when the
 * flow has none. Read from the batches the shop started (written before the start's answer), not
 * from Temporal's visibility store, which learns of a new run a moment later.
 */
export async function latestRecovery(tx: Tx, flowId: string): Promise<string | null> {
  const [latest] = await tx<{ workflowId: string }[]>`
    select workflow_id from delivery_recoveries where flow_id = ${flowId}
    order by ended_at is null desc, started_at desc limit 1`;
  return latest?.workflowId ?? null;
}

/** The batch just started, counted against the shop's share until it is found ended. */
export async function recordRecoveryStarted(
  tx: Tx,
  recovery: { workflowId: string; shopId: string; flowId: string; since: string; perMinute: number },
): Promise<void> {
  await tx`
    insert into delivery_recoveries (workflow_id, shop_id, flow_id, since, per_minute)
    values (${recovery.workflowId}, ${recovery.shopId}, ${recovery.flowId}, ${recovery.since}, ${recovery.perMinute})
    on conflict (workflow_id) do update set per_minute = excluded.per_minute, started_at = now(), ended_at = null`;
}

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
  /** The database's own text, to the microsecond (a page must start just after its last row). */
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
