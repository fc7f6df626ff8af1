import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { RecoveryRequest } from '../../activities/deliveries/delivery-recovery.js';
import { markRecoveriesEnded, openRecoveries, recordRecoveryStarted, recoveryAdmission } from '../../domain/flows/index.js';
import { seal, type Tx } from '../../domain/kernel/index.js';
import { deliveryRecoveryWorkflow, recoveryProgressQuery, type RecoveryProgress } from './recovery-workflow.js';
import type { DeliveryStarter } from './delivery-starter.js';
import { FlowIdKey, ShopIdKey, ShopSlugKey } from '../search-attributes.js';
import { shopFairness } from '../shop-fairness.js';

/** A batch before it is sealed: what the admin API builds. */
export type RecoveryStart = Omit<RecoveryRequest, 'seal'>;

/**
 * `delivery-recovery:<flowId>:<since>` (`since` as an ISO instant in UTC): one batch per flow and
 * starting time, so a second start of the same batch while it runs finds it.
 */
export function recoveryWorkflowId(flowId: string, since: string): string {
  return `delivery-recovery:${flowId}:${new Date(since).toISOString()}`;
}

/** Where a batch is, as the admin API shows it: the batch's own count, and what its children (the resends) have come to. */
export interface RecoveryState extends RecoveryProgress {
  workflowId: string;
  state: 'running' | 'done' | 'stopped';
  /** Resends delivered. */
  delivered: number;
  /** Resends whose attempt failed again: retrying on their schedule, or failed or gone for good. */
  stillFailing: number;
}

/**
 * Starts the batch, or joins it: a batch of the same flow and `since` still running is the one the
 * caller gets (`joined`), with its own pace; one that has ended may run again (what has failed since).
 */
export async function startRecovery(starter: DeliveryStarter, start: RecoveryStart): Promise<{ workflowId: string; joined: boolean }> {
  const workflowId = recoveryWorkflowId(start.flowId, start.since);
  try {
    await starter.client.workflow.start(deliveryRecoveryWorkflow, {
      taskQueue: starter.taskQueue,
      workflowId,
      args: [{ request: seal(starter.sealKey, start, workflowId) }],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      // Its children (the resends) inherit it.
      priority: shopFairness(start.shopId),
      typedSearchAttributes: [
        { key: ShopIdKey, value: start.shopId },
        { key: ShopSlugKey, value: start.about.shopSlug },
        { key: FlowIdKey, value: start.flowId },
      ],
      staticSummary: `resend of ${start.about.flowName}: ${start.found} failed deliveries since ${start.since}, ${start.perMinute} a minute`,
      staticDetails: [
        `**Shop** ${start.about.shopSlug}`,
        `**Flow** ${start.about.flowName} (${start.flowId})`,
        `**Failed deliveries** created since ${start.since}, failed by ${start.until}: ${start.found}`,
        `**Pace** ${start.perMinute} a minute`,
      ].join('\n'),
    });
    return { workflowId, joined: false };
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return { workflowId, joined: true };
    throw error;
  }
}

/**
 * Starts the batch within the shop's share (domain/flows recoveryAdmission): the shop's batches are
 * read and locked in `tx` (the shop's), each asked of Temporal whether it still runs; the same batch
 * running is joined; otherwise 409, or the batch starts and is recorded in `tx`.
 */
export async function startRecoveryInShare(
  tx: Tx,
  starter: DeliveryStarter,
  start: RecoveryStart,
  flow: { state: string; httpEnabled: boolean },
): Promise<{ workflowId: string; joined: boolean }> {
  const open = await openRecoveries(tx, start.shopId);
  const runs = await Promise.all(open.map((recovery) => isRunning(starter, recovery.workflowId)));
  const running = open.filter((_, index) => runs[index]);
  await markRecoveriesEnded(
    tx,
    open.filter((_, index) => !runs[index]).map((recovery) => recovery.workflowId),
  );
  if (recoveryAdmission(flow, running, start) === 'join')
    return { workflowId: recoveryWorkflowId(start.flowId, start.since), joined: true };
  const started = await startRecovery(starter, start);
  await recordRecoveryStarted(tx, { ...start, workflowId: started.workflowId });
  return started;
}

async function isRunning(starter: DeliveryStarter, workflowId: string): Promise<boolean> {
  try {
    return (await starter.client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * A batch's progress: its own count (asked of its latest run), and its children's outcomes from the
 * visibility store (their `DeliveryStatus`, by their parent's id, across the batch's runs). Null when
 * there is no such batch.
 */
export async function recoveryState(starter: DeliveryStarter, workflowId: string): Promise<RecoveryState | null> {
  const handle = starter.client.workflow.getHandle(workflowId);
  let description;
  try {
    description = await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
  const children = (statuses: string) =>
    starter.client.workflow.count(`ParentWorkflowId = '${workflowId}' AND DeliveryStatus IN (${statuses})`).then(({ count }) => count);
  const [progress, delivered, stillFailing] = await Promise.all([
    handle.query(recoveryProgressQuery),
    children(`'delivered'`),
    children(`'retrying', 'failed', 'gone'`),
  ]);
  const status = description.status.name;
  return {
    ...progress,
    workflowId,
    state: status === 'RUNNING' ? 'running' : status === 'COMPLETED' ? 'done' : 'stopped',
    delivered,
    stillFailing,
  };
}
