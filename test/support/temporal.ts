import { randomUUID } from 'node:crypto';
import { Connection, type Client, type ConnectionLike, type WorkflowHandle } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import { NativeConnection, Runtime, DefaultLogger, type Worker } from '@temporalio/worker';
import { createShopflowWorker, workflowsPath, type ShopflowWorkerOptions } from '../../workers/setup/create-worker.js';
import { cachedWorkflowBundle } from '../../workers/setup/workflow-bundle.js';
import type { OutboundPolicy } from '../../adapters/outbound/outbound-http.js';
import type { Sql } from '../../db/client.js';
import type { DeliveryStarter } from '../../workflows/deliveries/delivery-starter.js';
import { TEST_WORKFLOW_SEAL_KEY, testEnv } from './environment.js';

export { TEST_WORKFLOW_SEAL_KEY };
import { testSecretsKey } from './fixtures.js';
import { testCarrierEndpoints } from './carriers.js';
import { loadSettings } from '../../config/settings.js';
import { temporalClient } from '../../config/temporal-connection.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

/** The codec keys of the test settings, which the worker, relay and CLI child processes read too. */
export const testCodecKeys = loadSettings().payloadCodecKeys;

/** A client of the suite's Temporal server with the payload codec, as every Shopflow client has. */
export function testTemporalClient(connection: ConnectionLike, namespace?: string): Client {
  return temporalClient(connection, testCodecKeys, namespace);
}

export interface TestTemporal {
  client: Client;
  /** The worker's own connection: a client on it may start workflows eagerly on this worker. */
  nativeConnection: NativeConnection;
  taskQueue: string;
  /** Starts deliveries on this worker's task queue, sealed with TEST_WORKFLOW_SEAL_KEY. */
  deliveries: DeliveryStarter;
  /** The worker of the main queue; `shipmentWorker`, when asked for, polls the shipments' queue (shipmentTaskQueue). */
  worker: Worker;
  shipmentWorker: Worker | undefined;
  shutdown: () => Promise<void>;
}

/** A Shopflow worker's options as the test processes have them, on `taskQueue` of the suite's server. */
export async function testWorkerOptions(options: {
  sql: Sql;
  policy: OutboundPolicy;
  connection: NativeConnection;
  taskQueue: string;
}): Promise<ShopflowWorkerOptions> {
  const { bundle: workflowBundle } = await cachedWorkflowBundle(workflowsPath, { logger: new DefaultLogger('WARN') });
  return {
    connection: options.connection,
    namespace: 'default',
    taskQueue: options.taskQueue,
    sql: options.sql,
    policy: options.policy,
    sealKey: TEST_WORKFLOW_SEAL_KEY,
    secretsKey: testSecretsKey,
    workflowBundle,
    carrierEndpoints: testCarrierEndpoints,
    payloadCodecKeys: testCodecKeys,
  };
}

/**
 * Shopflow's workers (the main queue, and the shipments' when `shipments` asks) on a task queue of
 * their own of the real Temporal server that `npm test` started, with the workflow bundle the worker
 * processes keep (built once per version of workflows/), and a client.
 */
export async function startTestWorker(options: { sql: Sql; policy: OutboundPolicy; shipments?: boolean }): Promise<TestTemporal> {
  const address = testEnv('TEMPORAL_ADDRESS');
  const taskQueue = `test-${randomUUID()}`;
  const [nativeConnection, connection] = await Promise.all([NativeConnection.connect({ address }), Connection.connect({ address })]);
  const workerOptions = await testWorkerOptions({ ...options, connection: nativeConnection, taskQueue });
  const [worker, shipmentWorker] = await Promise.all([
    createShopflowWorker(workerOptions),
    options.shipments ? createShopflowWorker({ ...workerOptions, queue: 'shipments' }) : undefined,
  ]);
  const running = Promise.all([worker.run(), shipmentWorker?.run()]);
  const client = testTemporalClient(connection);
  return {
    client,
    nativeConnection,
    taskQueue,
    deliveries: { client, taskQueue, sealKey: TEST_WORKFLOW_SEAL_KEY },
    worker,
    shipmentWorker,
    shutdown: async () => {
      worker.shutdown();
      shipmentWorker?.shutdown();
      await running;
      await Promise.all([nativeConnection.close(), connection.close()]);
    },
  };
}

/** The timers a run set, in milliseconds, as its history holds them: a pace or a retry's wait, never the machine's. */
export async function timersOf(handle: WorkflowHandle): Promise<number[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((event) => {
    const timeout = optionalTsToMs(event.timerStartedEventAttributes?.startToFireTimeout);
    return timeout === undefined ? [] : [timeout];
  });
}
