import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Worker, type WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, describe, expect, it } from 'vitest';
import * as registered from '../../workflows/index.js';
import { shipmentOutcomeSinks, workflowsPath } from '../../workers/setup/create-worker.js';

/**
 * Histories recorded from real runs (test/workflows/histories, written by scripts/record-history.ts),
 * replayed with today's workflow code. A change to a workflow that would break the
 * runs in flight when it is deployed (a command added, removed or reordered without `patched()`) fails
 * here before it reaches a worker. No server: replay runs in this process.
 */
const historiesDir = fileURLToPath(new URL('./histories/', import.meta.url));
const recorded = readdirSync(historiesDir)
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({ workflowId: file.replace(/\.json$/, ''), history: JSON.parse(readFileSync(historiesDir + file, 'utf8')) as History }));

interface History {
  events: { workflowExecutionStartedEventAttributes?: { workflowType: { name: string } } }[];
}

const workflowType = (history: History) => history.events[0]!.workflowExecutionStartedEventAttributes!.workflowType.name;
const bundle = (path: string) => bundleWorkflowCode({ workflowsPath: path, logger: new DefaultLogger('WARN') });

async function replay(workflowBundle: WorkflowBundle, histories: typeof recorded) {
  const results: { workflowId: string; error?: Error }[] = [];
  // The sinks every worker registers (a replay calls none of them, but the SDK checks they exist).
  const options = { workflowBundle, replayName: 'recorded-histories', sinks: shipmentOutcomeSinks() };
  for await (const result of Worker.runReplayHistories(options, histories)) {
    results.push(result);
  }
  return results;
}

describe('recorded workflow histories', () => {
  let workflowBundle: WorkflowBundle;
  beforeAll(async () => {
    workflowBundle = await bundle(workflowsPath);
  }, 60_000);

  it('has at least one history of every workflow the worker registers', () => {
    const covered = new Set(recorded.map(({ history }) => workflowType(history)));
    expect(Object.keys(registered).filter((name) => !covered.has(name))).toEqual([]);
  });

  it('replays every recorded history with the current workflow code', async () => {
    const results = await replay(workflowBundle, recorded);
    expect(results.map(({ workflowId }) => workflowId).sort()).toEqual(recorded.map(({ workflowId }) => workflowId).sort());
    expect(results.filter(({ error }) => error).map(({ workflowId, error }) => `${workflowId}: ${error!.message}`)).toEqual([]);
  }, 60_000);

  it('fails the replay of a delivery when the workflow changed its commands without versioning', async () => {
    const delivered = recorded.filter(({ workflowId }) => workflowId === 'delivery-delivered-at-once');
    expect(delivered).toHaveLength(1);
    const [result] = await replay(await bundle(fileURLToPath(new URL('./changed-delivery-workflow.ts', import.meta.url))), delivered);
    expect(result?.error).toBeInstanceOf(DeterminismViolationError);
  }, 60_000);
});
