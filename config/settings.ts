import { createSecretKey } from 'node:crypto';
import { z } from 'zod';

/** The role of the API, worker and relay connections (created by the first migration). */
export const APP_ROLE = 'shopflow_app';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .default('false')
  .transform((value) => value === 'true' || value === '1');

/** DEVELOPMENT AND TESTS ONLY (public, in this file): production refuses to start without SECRETS_KEY. */
const DEVELOPMENT_SECRETS_KEY = Buffer.from('shopflow-development-secrets-key').toString('base64');

const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_BASE_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.string().min(1).optional(),
  APP_DATABASE_URL: z.string().min(1).optional(),
  APP_DB_PASSWORD: z.string().default('shopflow_app'),
  DB_POOL_MAX: z.coerce.number().int().min(1).default(10),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).default(15_000),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('shopflow'),
  TEMPORAL_UI_URL: z.string().default('http://127.0.0.1:8233'),
  CURSOR_SECRET: z.string().min(16).default('shopflow-development-cursor-secret'),
  SECRETS_KEY: z
    .base64()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be the base64 of 32 bytes')
    .default(DEVELOPMENT_SECRETS_KEY),
  WEBHOOK_ALLOW_LOOPBACK: booleanFlag,
  WEBHOOK_EXTRA_CA_FILE: z.string().optional(),
});

export type Settings = ReturnType<typeof loadSettings>;

/** Reads the process settings from the environment (see README, "Settings"). */
export function loadSettings(env: NodeJS.ProcessEnv = process.env) {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid settings: ${problems.join('; ')}`);
  }
  const s = parsed.data;
  if (s.NODE_ENV === 'production' && (s.WEBHOOK_ALLOW_LOOPBACK || s.WEBHOOK_EXTRA_CA_FILE)) {
    throw new Error('WEBHOOK_ALLOW_LOOPBACK and WEBHOOK_EXTRA_CA_FILE are for development and tests only');
  }
  if (s.NODE_ENV === 'production' && !env.CURSOR_SECRET) throw new Error('CURSOR_SECRET must be set in production (list cursors are signed with it)');
  if (s.NODE_ENV === 'production' && !env.SECRETS_KEY) throw new Error('SECRETS_KEY must be set in production (signing secrets are sealed with it)');
  const databaseUrl = s.DATABASE_URL;
  return {
    ...s,
    publicBaseUrl: (s.PUBLIC_BASE_URL ?? `http://localhost:${s.PORT}`).replace(/\/$/, ''),
    appDatabaseUrl: s.APP_DATABASE_URL ?? (databaseUrl ? appRoleUrl(databaseUrl, APP_ROLE, s.APP_DB_PASSWORD) : undefined),
    /** The AES-256-GCM key of secrets at rest (domain/sealed-secrets.ts), as node:crypto takes it. */
    secretsKey: createSecretKey(Buffer.from(s.SECRETS_KEY, 'base64')),
    databaseTimeouts: { statementMs: s.DB_STATEMENT_TIMEOUT_MS, idleInTransactionMs: s.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS },
  };
}

/** The same server and database as `adminUrl`, as the application role. */
export function appRoleUrl(adminUrl: string, role: string, password: string): string {
  const url = new URL(adminUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}
