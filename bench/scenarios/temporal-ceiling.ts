import { randomUUID } from 'node:crypto';
import type { InjectedSinks } from '@temporalio/worker';
import { searchAttributes } from '../../workflows/deliveries/delivery-starter.js';
import { emptyWorkflow, type CeilingSinks } from '../workflows/empty.js';
import { cpuBetween, cpuPer, cpuSnapshot, formatCpu, type CpuGroups } from '../cpu-usage.js';
import { startBenchWorker } from '../bench-worker.js';
import { median } from '../quantile.js';

export interface CeilingResults {
  concurrency: number;
  workflows: number;
  workflowsPerSecond: number;
  p50Ms: number;
  /** CPU milliseconds per workflow: `temporal` is the server (dev or cluster), `bench` this process with its worker. */
  cpuMsPerWorkflow: CpuGroups;
}

/**
 * The engine's own ceiling on this machine: workflows that do nothing, each with the five search
 * attributes of a delivery, started eagerly on a worker in this process, `concurrency` at a time
 * (closed loop) for `seconds`. A delivery is one such workflow plus its HTTPS attempt, so no delivery
 * rate can exceed this one.
 */
export async function temporalCeilingScenario(options: {
  temporalAddress: string;
  seconds: number;
  concurrency: number;
}): Promise<CeilingResults> {
  const waiting = new Map<string, () => void>();
  const sinks: InjectedSinks<CeilingSinks> = {
    bench: { finished: { fn: (info) => waiting.get(info.workflowId)?.(), callDuringReplay: false } },
  };
  const { client, taskQueue, stop } = await startBenchWorker({
    temporalAddress: options.temporalAddress,
    workflows: 'empty.ts',
    taskQueuePrefix: 'bench-ceiling',
    sinks,
  });
  const runOne = async (): Promise<number> => {
    const workflowId = `bench-ceiling:${randomUUID()}`;
    const started = performance.now();
    const finished = new Promise<void>((resolve) => waiting.set(workflowId, resolve));
    await client.workflow.start(emptyWorkflow, {
      taskQueue,
      workflowId,
      requestEagerStart: true,
      typedSearchAttributes: searchAttributes({
        shopId: randomUUID(),
        flowId: randomUUID(),
        eventType: 'product.updated',
        eventId: `evt_${randomUUID()}`,
      }),
    });
    await finished;
    waiting.delete(workflowId);
    return performance.now() - started;
  };
  const loop = async (until: number, record: (ms: number) => void) => {
    while (performance.now() < until) record(await runOne());
  };
  try {
    // Two seconds unmeasured: the worker's first activations compile the workflow code.
    const warmUntil = performance.now() + 2_000;
    await Promise.all(Array.from({ length: options.concurrency }, () => loop(warmUntil, () => {})));
    const latencies: number[] = [];
    const cpuBefore = cpuSnapshot();
    const started = performance.now();
    const until = started + options.seconds * 1_000;
    await Promise.all(Array.from({ length: options.concurrency }, () => loop(until, (ms) => latencies.push(ms))));
    const seconds = (performance.now() - started) / 1_000;
    const cpu = cpuBetween(cpuBefore, cpuSnapshot());
    const results: CeilingResults = {
      concurrency: options.concurrency,
      workflows: latencies.length,
      workflowsPerSecond: latencies.length / seconds,
      p50Ms: median(latencies),
      cpuMsPerWorkflow: cpuPer(cpu, latencies.length),
    };
    const perWorkflow = formatCpu(results.cpuMsPerWorkflow);
    console.log(
      `${`empty workflows, ${options.concurrency} in flight`.padEnd(40)} ${results.workflowsPerSecond.toFixed(0).padStart(6)} workflows/s   p50 ${results.p50Ms.toFixed(0)} ms   CPU per workflow: ${perWorkflow}`,
    );
    return results;
  } finally {
    await stop();
  }
}
