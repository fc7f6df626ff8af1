import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { pushModelOutcome, pushModelWorkflow } from '../workflows/push-model.js';
import { cpuBetween, cpuPer, cpuSnapshot, formatCpu, type CpuGroups } from '../cpu-usage.js';
import { startBenchWorker } from '../bench-worker.js';
import { median } from '../quantile.js';

/** The local activity's own time: about the carrier's create and the record's transaction. */
const STEP_MS = 5;
const ALONE = 30;
const IN_FLIGHT = 20;
const TOTAL = 400;

interface PatternFigures {
  aloneP50Ms: number;
  perSecond: number;
  cpuMsPerPush: CpuGroups;
}

/**
 * The push's engine path (docs/behaviour/shipments.md), measured on the engine alone: a push modelled as one workflow with one
 * local activity of STEP_MS, its caller answered (a) by update-with-start, as pushes are now, or (b) by
 * an eager start on a worker in the caller's process, the outcome handed over in the process. One at a
 * time (p50 over ALONE) and IN_FLIGHT at a time (TOTAL pushes), with the CPU of each process group.
 */
export async function pushPatternsScenario(options: { temporalAddress: string }) {
  const handOff = new Map<string, () => void>();
  const { client, taskQueue, stop } = await startBenchWorker({
    temporalAddress: options.temporalAddress,
    workflows: 'push-model.ts',
    taskQueuePrefix: 'bench-push-model',
    activities: {
      async pushModelStep(id: string) {
        await new Promise((resolve) => setTimeout(resolve, STEP_MS));
        handOff.get(id)?.();
        return id;
      },
    },
  });

  const byUpdateWithStart = async () => {
    const workflowId = `bench-push-model:${randomUUID()}`;
    const startWorkflowOperation = new WithStartWorkflowOperation(pushModelWorkflow, {
      workflowId,
      taskQueue,
      args: [workflowId],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    await client.workflow.executeUpdateWithStart(pushModelOutcome, { updateId: 'push', startWorkflowOperation });
  };
  const byEagerStart = async () => {
    const workflowId = `bench-push-model:${randomUUID()}`;
    const handedOver = new Promise<void>((resolve) => handOff.set(workflowId, resolve));
    const handle = await client.workflow.start(pushModelWorkflow, { workflowId, taskQueue, args: [workflowId], requestEagerStart: true });
    // Not eager (the worker full): the run is elsewhere, and the update asks it as in (a).
    await (handle.eagerlyStarted ? handedOver : handle.executeUpdate(pushModelOutcome, { updateId: 'push' }));
    handOff.delete(workflowId);
  };

  const measure = async (push: () => Promise<void>): Promise<PatternFigures> => {
    const alone: number[] = [];
    for (let index = 0; index < ALONE; index += 1) {
      const started = performance.now();
      await push();
      alone.push(performance.now() - started);
    }
    let next = 0;
    const cpuBefore = cpuSnapshot();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < TOTAL) await push();
      }),
    );
    const seconds = (performance.now() - started) / 1_000;
    return {
      aloneP50Ms: Number(median(alone).toFixed(1)),
      perSecond: Number((TOTAL / seconds).toFixed(1)),
      cpuMsPerPush: cpuPer(cpuBetween(cpuBefore, cpuSnapshot()), TOTAL),
    };
  };

  try {
    // Unmeasured first: the worker's first activations compile the workflow code.
    for (let index = 0; index < 10; index += 1) await Promise.all([byUpdateWithStart(), byEagerStart()]);
    // Alternating, twice: the machine's pace drifts between phases.
    const figures: Record<'updateWithStart' | 'eagerStart', PatternFigures[]> = { updateWithStart: [], eagerStart: [] };
    for (let round = 0; round < 2; round += 1) {
      figures.updateWithStart.push(await measure(byUpdateWithStart));
      figures.eagerStart.push(await measure(byEagerStart));
    }
    const print = (label: string, each: PatternFigures[]) => {
      for (const figure of each)
        console.log(
          `${label.padEnd(44)} alone p50 ${figure.aloneP50Ms} ms   ${IN_FLIGHT} in flight ${figure.perSecond}/s   CPU per push: ${formatCpu(figure.cpuMsPerPush)}`,
        );
    };
    print('(a) update-with-start', figures.updateWithStart);
    print('(b) eager start, outcome handed over', figures.eagerStart);
    return { stepMs: STEP_MS, ...figures };
  } finally {
    await stop();
  }
}
