import { readdirSync, readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { Connection, type Client } from '@temporalio/client';
import { loadSettings } from '../config/settings.js';
import { temporalClient } from '../config/temporal-connection.js';
import { eachAtMost } from './load.js';

/** How the deliveries of one phase spread over several relays and workers, read back from Temporal. */
export interface DeliverySpread {
  workflows: number;
  /** Runs on the phase's task queue: one per (flow, event) when no delivery was started twice. */
  runs: number;
  /** Deliveries each relay started (the identity on the run's `WorkflowExecutionStarted`). */
  startsByRelay: Record<string, number>;
  /** First workflow tasks each worker completed, the relays' own workers included. */
  firstTasksByWorker: Record<string, number>;
}

/**
 * A Temporal client's and worker's default identity is `<pid>@<host>`; tsx runs each entry point in a
 * child node process, so an identity's pid is the launched process or its child.
 */
function processNames(launched: Map<string, ChildProcess>): Map<number, string> {
  const names = new Map<number, string>();
  for (const [name, child] of launched) if (child.pid) names.set(child.pid, name);
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The parent's pid is the second field after the parenthesised command name.
      const parent = names.get(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (parent) names.set(pid, parent);
    } catch {
      // the process ended between listing and reading
    }
  }
  return names;
}

/**
 * Reads each delivery's history (who started it, who ran its first task) and counts the runs on the
 * task queue, waiting for the visibility store to catch up with the closes.
 */
export async function deliverySpread(
  temporalAddress: string,
  taskQueue: string,
  workflowIds: string[],
  launched: Map<string, ChildProcess>,
): Promise<DeliverySpread> {
  const names = processNames(launched);
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    return await countSpread(temporalClient(connection, loadSettings().payloadCodecKeys), taskQueue, workflowIds, names);
  } finally {
    await connection.close();
  }
}

async function countSpread(client: Client, taskQueue: string, workflowIds: string[], names: Map<number, string>): Promise<DeliverySpread> {
  const nameOf = (identity: string | null | undefined) => names.get(Number(identity?.split('@')[0])) ?? `other (${identity})`;
  const startsByRelay: Record<string, number> = {};
  const firstTasksByWorker: Record<string, number> = {};
  await eachAtMost(workflowIds, 16, async (id) => {
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const starter = nameOf(events[0]?.workflowExecutionStartedEventAttributes?.identity);
    const runner = nameOf(
      events.find((event) => event.workflowTaskCompletedEventAttributes)?.workflowTaskCompletedEventAttributes?.identity,
    );
    startsByRelay[starter] = (startsByRelay[starter] ?? 0) + 1;
    firstTasksByWorker[runner] = (firstTasksByWorker[runner] ?? 0) + 1;
  });
  let runs = 0;
  for (let tries = 0; tries < 30; tries += 1) {
    ({ count: runs } = await client.workflow.count(`TaskQueue = '${taskQueue}'`));
    if (runs >= workflowIds.length) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return { workflows: workflowIds.length, runs, startsByRelay, firstTasksByWorker };
}
