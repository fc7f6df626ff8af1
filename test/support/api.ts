import { Writable } from 'node:stream';
import { Connection } from '@temporalio/client';
import { buildApp, type App, type AppDeps } from '../../api/app.js';
import type { Sql } from '../../db/client.js';
import { TEST_DELIVERY_REQUEST_KEY, testEnv } from './environment.js';
import { testSecretsKey } from './fixtures.js';
import { testOutboundPolicy } from './receiver.js';
import { testCarrierEndpoints } from './carriers.js';
import { testCodecKeys } from './temporal.js';

/** The operator token of the test API's codec endpoint. */
export const TEST_OPERATOR_TOKEN = 'test-operator-token-0123456789abcdef';

export interface TestApi {
  app: App;
  baseUrl: string;
  /** Every log line the API wrote, as text. */
  logs: string[];
  close: () => Promise<void>;
}

/** The task queue the admin routes start deliveries on (none is polled unless given), and the server's settings. */
export type TestApiOptions = { taskQueue?: string } & Partial<
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
    temporalTaskQueue: options.taskQueue ?? 'shopflow-test-unused',
    temporalUiUrl: options.temporalUiUrl ?? 'http://127.0.0.1:8233',
    deliveryRequestKey: TEST_DELIVERY_REQUEST_KEY,
    trustProxy: options.trustProxy,
    requestTimeoutMs: options.requestTimeoutMs,
    shipments: options.shipments,
    chatPlatformUrl: options.chatPlatformUrl,
    chatWebhook: options.chatWebhook,
    outbound: testOutboundPolicy(),
    carrierEndpoints: options.carrierEndpoints ?? testCarrierEndpoints,
    logger: { level: 'info', stream },
  });
  beforeListen?.(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    baseUrl: address,
    logs,
    close: async () => {
      await app.close();
      await temporal.close();
    },
  };
}
