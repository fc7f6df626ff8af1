import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Settings } from '../../config/settings.js';
import { temporalClient, temporalConnectionOptions } from '../../config/temporal-connection.js';
import type { Sql } from '../../db/client.js';
import type { MetricsServer } from '../../telemetry/metrics-server.js';
import type { Tracing } from '../../telemetry/tracing.js';
import { ShipmentOutcomes, type EagerShipments } from '../../workflows/shipments/shipment-starter.js';
import { createShopflowWorker, installWorkerRuntime, workerOptionsFrom, type ShopflowWorkerOptions } from './create-worker.js';

/** The worker an API process hosts on the shipments' queue, and what its pushes and cancels start on while it runs. */
export interface ShipmentWorkerHost {
  /** The client on the worker's connection and its outcomes; undefined until the worker runs, and after it stopped. */
  eager: () => EagerShipments | undefined;
  /** Settles once the worker runs, or once its start was given up (stopped, or failed: logged). */
  started: Promise<void>;
  /** Stops the worker once its tasks are done (after the API stopped taking requests), and closes its connection. */
  stop: () => Promise<void>;
}

/** The start of the identity of an API process's worker in a run's history. */
export const API_WORKER_IDENTITY = 'shopflow-api';
const RETRY_FIRST_MS = 1_000;
const RETRY_MOST_MS = 15_000;

/**
 * Hosts the shipments' worker of an API process (docs/behaviour/shipments.md), connected in the background: the
 * API serves while Temporal is down, and until the worker runs its pushes and cancels start through
 * the server, as they do when this worker is full. A worker that fails is logged and not restarted
 * here: the API goes on without it (the stand-alone workers poll the same queue).
 */
export function hostShipmentWorker(options: {
  connect: () => Promise<NativeConnection>;
  workerOptions: (
    connection: NativeConnection,
  ) => Promise<Omit<ShopflowWorkerOptions, 'queue' | 'shipmentOutcomes' | 'identity' | 'pollsAtMost'>>;
  log: (level: 'warn' | 'error' | 'info', message: string) => void;
}): ShipmentWorkerHost {
  let ready: EagerShipments | undefined;
  let stopped = false;
  let connection: NativeConnection | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  const stopping = new AbortController();

  const start = async () => {
    for (let waitMs = RETRY_FIRST_MS; !stopped; waitMs = Math.min(waitMs * 2, RETRY_MOST_MS)) {
      try {
        connection = await options.connect();
        break;
      } catch (error) {
        options.log(
          'warn',
          `shipments worker: Temporal not reached (${String(error)}); pushes go through the server; again in ${waitMs / 1000} s`,
        );
        await sleep(waitMs, undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
    if (stopped || !connection) return;
    const workerOptions = await options.workerOptions(connection);
    const outcomes = new ShipmentOutcomes();
    // Named so that operators tell, in a run's history, the tasks an API process ran.
    const identity = `${API_WORKER_IDENTITY} ${process.pid}@${hostname()}`;
    // Its pushes and cancels come eagerly; polls serve only the rest (tracking, retries): two suffice.
    worker = await createShopflowWorker({ ...workerOptions, queue: 'shipments', shipmentOutcomes: outcomes, identity, pollsAtMost: 2 });
    running = worker.run().finally(() => (ready = undefined));
    running.catch((error: unknown) => options.log('error', `shipments worker stopped: ${String(error)}; pushes go through the server`));
    ready = { client: temporalClient(connection, workerOptions.payloadCodecKeys, workerOptions.namespace), outcomes };
    options.log('info', `shipments worker polling task queue "${worker.options.taskQueue}": pushes and cancels start here eagerly`);
  };
  const starting = start().catch((error: unknown) => options.log('error', `shipments worker not started: ${String(error)}`));

  return {
    eager: () => ready,
    started: starting,
    stop: async () => {
      stopped = true;
      stopping.abort();
      await starting;
      ready = undefined;
      if (worker && worker.getState() === 'RUNNING') worker.shutdown();
      await running?.catch(() => undefined);
      await connection?.close();
    },
  };
}

/**
 * What `api/server.ts` hosts with `SHIPMENT_WORKER=on`: the SDK's runtime and the API's `/metrics`
 * (its own and the SDK's, unless METRICS is off), and the shipments' worker on the settings' Temporal,
 * connected in the background.
 */
export async function hostApiShipmentWorker(
  settings: Settings,
  sql: Sql,
  log: (level: 'warn' | 'error' | 'info', message: string) => void,
  tracing: Tracing,
): Promise<{ host: ShipmentWorkerHost; metrics: MetricsServer | undefined }> {
  const metrics = await installWorkerRuntime(settings, settings.API_METRICS_PORT);
  const host = hostShipmentWorker({
    connect: () => NativeConnection.connect(temporalConnectionOptions(settings)),
    workerOptions: (connection) => workerOptionsFrom(settings, sql, connection, tracing),
    log,
  });
  return { host, metrics };
}
