import { createSecretKey } from 'node:crypto';
import { z } from 'zod';
import { parseCodecKeys } from './payload-codec.js';

/** The role of the API, worker and relay connections (created by the first migration). */
export const APP_ROLE = 'shopflow_app';
/** The password the bootstrap gives the role unless `APP_DB_PASSWORD` says otherwise; never accepted in production. */
export const DEVELOPMENT_APP_DB_PASSWORD = 'shopflow_app';

const flag = (byDefault: 'true' | 'false') =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .default(byDefault)
    .transform((value) => value === 'true' || value === '1');

/**
 * Fastify's `trustProxy`: empty or `false` trusts no proxy (the socket address is the client), `true`
 * every hop, a number that many hops, anything else a comma-separated list of proxy addresses or CIDRs.
 */
const trustProxy = z
  .string()
  .default('false')
  .transform((value): boolean | number | string[] => {
    const text = value.trim();
    if (text === '' || text === 'false') return false;
    if (text === 'true') return true;
    if (/^\d+$/.test(text)) return Number(text);
    return text
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
  });

/** GHN's and GHTK's API hosts, production and staging: where carrier connections may point by default. */
export const OFFICIAL_CARRIER_HOSTS = {
  carrier_a: ['online-gateway.ghn.vn', 'dev-online-gateway.ghn.vn'],
  carrier_b: ['services.giaohangtietkiem.vn', 'services-staging.ghtklab.com'],
} as const;

/** A comma-separated list of host names, lower-cased. */
const hostList = (defaults: readonly string[]) =>
  z
    .string()
    .default(defaults.join(','))
    .transform((value) =>
      value
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
    );

/** How many days housekeeping keeps deliveries (with their attempts) and outbox events. */
export interface Retention {
  deliveryDays: number;
  eventDays: number;
}
export const DEFAULT_RETENTION: Retention = { deliveryDays: 90, eventDays: 30 };

/** Secrets that have a public development value; production refuses to start without its own. */
const DEVELOPMENT_SECRETS = {
  CURSOR_SECRET: 'shopflow-development-cursor-secret',
  PAYLOAD_CODEC_KEYS: `dev-1:${Buffer.from('shopflow-development-codec-key!!').toString('base64')}`,
  WORKFLOW_SEAL_KEY: 'shopflow-development-workflow-seal-key',
  SECRETS_KEY: Buffer.from('shopflow-development-secrets-key').toString('base64'),
} as const;

const schema = z.object({
  // Production unless told otherwise: the README's two commands say development or test explicitly.
  NODE_ENV: z.enum(['development', 'test', 'production']).default('production'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Each process's Prometheus /metrics, on a listener of its own (0: any free port), on METRICS_HOST only;
  // `off`: none served, and the API times no request.
  METRICS: z.enum(['on', 'off']).default('on'),
  METRICS_HOST: z.string().default('127.0.0.1'),
  API_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
  RELAY_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9466),
  // Each shop's events a second through one relay while other shops have events too (ShopPace).
  RELAY_SHOP_EVENTS_PER_SECOND: z.coerce.number().int().min(1).default(10),
  // A shop's backlog paced lower while the machine is busy (ShopPace, workers/setup/machine-load.ts).
  RELAY_PACE_FOLLOWS_LOAD: flag('true'),
  PUBLIC_BASE_URL: z.url().optional(),
  // An OpenTelemetry collector's OTLP/HTTP base address (telemetry/tracing.ts); no traces without it.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess((value) => (value === '' ? undefined : value), z.url().optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.string().min(1).optional(),
  APP_DATABASE_URL: z.string().min(1).optional(),
  APP_DB_PASSWORD: z.string().min(1).default(DEVELOPMENT_APP_DB_PASSWORD),
  DB_POOL_MAX: z.coerce.number().int().min(1).default(10),
  TRUST_PROXY: trustProxy,
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).default(15_000),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('shopflow'),
  TEMPORAL_UI_URL: z.string().default('http://127.0.0.1:8233'),
  // Housekeeping (a Temporal Schedule) purges deliveries and their attempts older than this.
  DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).optional(),
  // Its earlier name (attempts only), read when DELIVERY_RETENTION_DAYS is unset: a shorter retention set
  // for the receivers' answers stays in force.
  DELIVERY_ATTEMPT_RETENTION_DAYS: z.coerce.number().int().min(1).optional(),
  // Housekeeping purges outbox events older than this, unless queued or needed by a delivery that may still send them.
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).default(DEFAULT_RETENTION.eventDays),
  // mTLS to the Temporal frontend (docs/security.md): a client certificate and key, and the CA of the server's certificate.
  TEMPORAL_TLS_CERT_FILE: z.string().optional(),
  TEMPORAL_TLS_KEY_FILE: z.string().optional(),
  TEMPORAL_TLS_CA_FILE: z.string().optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().optional(),
  CURSOR_SECRET: z.string().min(16).default(DEVELOPMENT_SECRETS.CURSOR_SECRET),
  // Workflow payloads are encrypted with the first key and read with any (config/payload-codec.ts).
  PAYLOAD_CODEC_KEYS: z
    .string()
    .default(DEVELOPMENT_SECRETS.PAYLOAD_CODEC_KEYS)
    .superRefine((value, context) => {
      try {
        parseCodecKeys(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  // The operators' credential at the codec endpoint (/temporal-codec); without it nothing is decoded there.
  CODEC_OPERATOR_TOKEN: z.preprocess((value) => (value === '' ? undefined : value), z.string().min(32).optional()),
  WORKFLOW_SEAL_KEY: z.string().min(32).default(DEVELOPMENT_SECRETS.WORKFLOW_SEAL_KEY),
  SECRETS_KEY: z
    .base64()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be the base64 of 32 bytes')
    .default(DEVELOPMENT_SECRETS.SECRETS_KEY),
  // The chat platform app: its secret signs the inbound webhooks; the verify token answers its subscription check.
  CHAT_APP_SECRET: z.string().min(8).optional(),
  CHAT_VERIFY_TOKEN: z.string().min(1).optional(),
  // The Graph API root (the simulator in development; https://graph.facebook.com without it, where
  // customer profiles are then not looked up).
  CHAT_PLATFORM_URL: z.url().optional(),
  // How long POST /shipments and its cancel wait for the carrier's answer (the workflow goes on after).
  SHIPMENT_WAIT_MS: z.coerce.number().int().min(1000).max(60_000).default(20_000),
  // An API process hosts a worker on the shipments' queue: pushes and cancels start on it eagerly (docs/behaviour/shipments.md).
  SHIPMENT_WORKER: z.enum(['on', 'off']).default('on'),
  // How long a tracked shipment's callbacks may be silent before the carrier's status endpoint is asked.
  SHIPMENT_POLL_MS: z.coerce.number().int().min(1000).default(900_000),
  // Development and tests only: webhooks, carrier connections and the chat platform may reach loopback (the simulators).
  OUTBOUND_ALLOW_LOOPBACK: flag('false'),
  // The hosts a carrier connection may point at (https only): GHN's and GHTK's APIs unless told otherwise.
  CARRIER_A_HOSTS: hostList(OFFICIAL_CARRIER_HOSTS.carrier_a),
  CARRIER_B_HOSTS: hostList(OFFICIAL_CARRIER_HOSTS.carrier_b),
  WEBHOOK_EXTRA_CA_FILE: z.string().optional(),
});

export type Settings = ReturnType<typeof loadSettings>;

/** Reads the process settings from the environment (docs/settings.md). */
export function loadSettings(env: NodeJS.ProcessEnv = process.env) {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid settings: ${problems.join('; ')}`);
  }
  const s = parsed.data;
  const databaseUrl = s.DATABASE_URL;
  const settings = {
    ...s,
    publicBaseUrl: (s.PUBLIC_BASE_URL ?? `http://localhost:${s.PORT}`).replace(/\/$/, ''),
    // Plain-http localhost is only for development and tests; anywhere else the cookie is https-only.
    secureCookies: s.NODE_ENV !== 'development' && s.NODE_ENV !== 'test',
    appDatabaseUrl: s.APP_DATABASE_URL ?? (databaseUrl ? appRoleUrl(databaseUrl, APP_ROLE, s.APP_DB_PASSWORD) : undefined),
    /** The AES-256-GCM key of secrets at rest (domain/kernel/encrypted-secrets.ts), as node:crypto takes it. */
    secretsKey: createSecretKey(Buffer.from(s.SECRETS_KEY, 'base64')),
    databaseTimeouts: { statementMs: s.DB_STATEMENT_TIMEOUT_MS, idleInTransactionMs: s.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS },
    /** Where carrier connections may point (domain/shipments/carrier-endpoints.ts). */
    carrierEndpoints: {
      hosts: { carrier_a: s.CARRIER_A_HOSTS, carrier_b: s.CARRIER_B_HOSTS },
      allowLoopback: s.OUTBOUND_ALLOW_LOOPBACK,
    },
    /** The payload codec's keys, the first encrypting (config/payload-codec.ts). */
    payloadCodecKeys: parseCodecKeys(s.PAYLOAD_CODEC_KEYS),
    /** Who may decode at the codec endpoint: the operator token (a development one under development and tests). */
    codecOperatorToken: s.CODEC_OPERATOR_TOKEN ?? (s.NODE_ENV === 'production' ? undefined : DEVELOPMENT_OPERATOR_TOKEN),
    /** The inbound chat webhook: off without an app secret (development and tests use the simulator's). */
    chatWebhook: chatWebhookSettings(s),
    /** What housekeeping keeps, in days: the worker's own bounds, never a workflow's input. */
    retention: {
      deliveryDays: s.DELIVERY_RETENTION_DAYS ?? s.DELIVERY_ATTEMPT_RETENTION_DAYS ?? DEFAULT_RETENTION.deliveryDays,
      eventDays: s.EVENT_RETENTION_DAYS,
    } satisfies Retention,
  };
  if (s.NODE_ENV === 'production') assertProductionSafe(settings);
  return settings;
}

/** The codec endpoint's operator token under development and tests (`npm run dev` prints it). */
export const DEVELOPMENT_OPERATOR_TOKEN = 'shopflow-development-operator-token';

/** The chat simulator's default app secret (simulators/chat), which development and tests use unless told otherwise. */
const DEVELOPMENT_CHAT_APP_SECRET = 'chat-simulator-app-secret';

function chatWebhookSettings(s: z.infer<typeof schema>): { appSecret: string; verifyToken?: string } | undefined {
  const appSecret = s.CHAT_APP_SECRET ?? (s.NODE_ENV === 'production' ? undefined : DEVELOPMENT_CHAT_APP_SECRET);
  if (!appSecret) return undefined;
  return {
    appSecret,
    ...(s.CHAT_VERIFY_TOKEN ? { verifyToken: s.CHAT_VERIFY_TOKEN } : {}),
  };
}

/** What production refuses: development conveniences and the public development secrets. */
function assertProductionSafe(settings: z.infer<typeof schema> & { appDatabaseUrl: string | undefined }): void {
  const refusals: string[] = [];
  if (settings.OUTBOUND_ALLOW_LOOPBACK || settings.WEBHOOK_EXTRA_CA_FILE) {
    refusals.push('OUTBOUND_ALLOW_LOOPBACK and WEBHOOK_EXTRA_CA_FILE are for development and tests only');
  }
  if (settings.CODEC_OPERATOR_TOKEN === DEVELOPMENT_OPERATOR_TOKEN) refusals.push('CODEC_OPERATOR_TOKEN must be a secret of your own');
  const developmentCodecKey = parseCodecKeys(DEVELOPMENT_SECRETS.PAYLOAD_CODEC_KEYS)[0].key;
  if (parseCodecKeys(settings.PAYLOAD_CODEC_KEYS).some(({ key }) => key.equals(developmentCodecKey)))
    refusals.push('PAYLOAD_CODEC_KEYS must not hold the development key');
  for (const [name, developmentValue] of Object.entries(DEVELOPMENT_SECRETS)) {
    if (settings[name as keyof typeof DEVELOPMENT_SECRETS] === developmentValue)
      refusals.push(`${name} must be set to a secret of your own`);
  }
  if (settings.CHAT_APP_SECRET === DEVELOPMENT_CHAT_APP_SECRET)
    refusals.push('CHAT_APP_SECRET must be the secret of your own platform app');
  const appPassword = settings.appDatabaseUrl ? decodeURIComponent(new URL(settings.appDatabaseUrl).password) : undefined;
  if (appPassword === DEVELOPMENT_APP_DB_PASSWORD)
    refusals.push(`the ${APP_ROLE} role must not use the development password (set APP_DB_PASSWORD or APP_DATABASE_URL)`);
  // Carrier callbacks and every problem's link are made from it: a localhost default sends them nowhere.
  const publicHost = settings.PUBLIC_BASE_URL ? new URL(settings.PUBLIC_BASE_URL).hostname : undefined;
  if (!publicHost || /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)$/.test(publicHost) || publicHost.endsWith('.localhost'))
    refusals.push('PUBLIC_BASE_URL must be set to the address integrators and carriers reach this API at, not localhost');
  if (refusals.length > 0) {
    throw new Error(`refusing production settings (NODE_ENV is production unless set to development or test): ${refusals.join('; ')}`);
  }
}

/** The same server and database as `adminUrl`, as the application role. */
export function appRoleUrl(adminUrl: string, role: string, password: string): string {
  const url = new URL(adminUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}
