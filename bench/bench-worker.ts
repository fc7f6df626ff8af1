import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { shopflowDataConverter } from '../config/payload-codec.js';
import { loadSettings } from '../config/settings.js';
import { temporalClient } from '../config/temporal-connection.js';

let runtimeInstalled = false;

/**
 * A worker in the bench's process for one of `bench/workflows/`, on a task queue of its own, with the
 * codec every Shopflow worker and client has (so a model pays what Shopflow pays for it), and a client
 * on the worker's connection (eager start hands its first task to this worker). `stop` shuts both down.
 */
export async function startBenchWorker(options: {
  temporalAddress: string;
  /** The file under bench/workflows/, e.g. `empty.ts`. */
  workflows: string;
  taskQueuePrefix: string;
  activities?: WorkerOptions['activities'];
  sinks?: WorkerOptions['sinks'];
}): Promise<{ client: Client; taskQueue: string; stop: () => Promise<void> }> {
  // The SDK's own lines (worker state, "no activities registered") would interleave with the figures.
  // Installed once a process (several scenarios start workers); a later runtime reuses the options.
  if (!runtimeInstalled) Runtime.install({ logger: new DefaultLogger('ERROR') });
  runtimeInstalled = true;
  const taskQueue = `${options.taskQueuePrefix}-${randomUUID()}`;
  const connection = await NativeConnection.connect({ address: options.temporalAddress });
  const { payloadCodecKeys } = loadSettings();
  const worker = await Worker.create({
    connection,
    taskQueue,
    dataConverter: shopflowDataConverter(payloadCodecKeys),
    ...(options.activities ? { activities: options.activities } : {}),
    ...(options.sinks ? { sinks: options.sinks } : {}),
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL(`./workflows/${options.workflows}`, import.meta.url)),
      logger: new DefaultLogger('WARN'),
    }),
  });
  const running = worker.run();
  return {
    client: temporalClient(connection, payloadCodecKeys),
    taskQueue,
    stop: async () => {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
