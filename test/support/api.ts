import { Writable } from 'node:stream';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { buildApp, type App, type AppDeps } from '../../api/app.js';
import type { Sql } from '../../db/client.js';
import { TEST_WORKFLOW_SEAL_KEY, testEnv } from './environment.js';
import { testSecretsKey } from './fixtures.js';
import { testOutboundPolicy } from './receiver.js';
import { testCarrierEndpoints } from './carriers.js';
import { testCodecKeys, testWorkerOptions } from './temporal.js';
import { hostShipmentWorker } from '../../workers/setup/shipment-worker-host.js';

/** The operator token of the test API's codec endpoint. */
export const TEST_OPERATOR_TOKEN = 'test-operator-token-0123456789abcdef';

export interface TestApi {
  app: App;
  baseUrl: string;
  /** Every log line the API wrote, as text. */
  logs: string[];
  close: () => Promise<void>;
}

/**
 * The task queue the admin routes start deliveries on (none is polled unless given), and the server's
 * settings. With a task queue, the API hosts a worker on its shipments' queue, as `api/server.ts`
 * does, unless `shipmentWorker` is false (SHIPMENT_WORKER=off).
 */
export type TestApiOptions = { taskQueue?: string; shipmentWorker?: boolean } & Partial<
  Pick<
    AppDeps,
    | 'trustProxy'
    | 'requestTimeoutMs'
    | 'secureCookies'
    | 'shipments'
    | 'chatPlatformUrl'
    | 'chatWebhook'
    | 'carrierEndpoints'
    | 'temporalUiUrl'
  >
>;

/**
 * The real API on a free port, over real HTTP, against a test database. `beforeListen` may add
 * routes (for example one that throws) before the server starts. Cookies are `Secure` as in
 * production unless `secureCookies` is false.
 */
export async function startTestApi(sql: Sql, beforeListen?: (app: App) => void, options: TestApiOptions = {}): Promise<TestApi> {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const temporal = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
  const taskQueue = options.taskQueue;
  const shipmentWorker =
    taskQueue && options.shipmentWorker !== false
      ? hostShipmentWorker({
          connect: () => NativeConnection.connect({ address: testEnv('TEMPORAL_ADDRESS') }),
          workerOptions: (connection) => testWorkerOptions({ sql, policy: testOutboundPolicy(), connection, taskQueue }),
          log: (level, message) => logs.push(`${level}: ${message}\n`),
        })
      : undefined;
  const app = await buildApp({
    sql,
    temporal,
    publicBaseUrl: 'https://shopflow.test',
    secureCookies: options.secureCookies ?? true,
    cursorSecret: 'test-cursor-secret-0123456789',
    secretsKey: testSecretsKey,
    temporalNamespace: 'default',
    payloadCodecKeys: testCodecKeys,
    codecOperatorToken: TEST_OPERATOR_TOKEN,
    temporalTaskQueue: taskQueue ?? 'shopflow-test-unused',
    ...(shipmentWorker ? { eagerShipments: shipmentWorker.eager } : {}),
    temporalUiUrl: options.temporalUiUrl ?? 'http://127.0.0.1:8233',
    workflowSealKey: TEST_WORKFLOW_SEAL_KEY,
    trustProxy: options.trustProxy,
    requestTimeoutMs: options.requestTimeoutMs,
    shipments: options.shipments,
    chatPlatformUrl: options.chatPlatformUrl,
    chatWebhook: options.chatWebhook,
    outbound: testOutboundPolicy(),
    carrierEndpoints: options.carrierEndpoints ?? testCarrierEndpoints,
    logger: { level: 'info', stream },
  });
  await shipmentWorker?.started;
  beforeListen?.(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    baseUrl: address,
    logs,
    close: async () => {
      await app.close();
      await shipmentWorker?.stop();
      await temporal.close();
    },
  };
}
