import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { composeCheck } from '../../scripts/bootstrap/compose-check.js';
import { projectRoot } from '../../scripts/bootstrap/paths.js';

/**
 * docker-compose.yml as `docker compose config` reads it (no Docker engine here): compose-go, the
 * library Compose is built on, interpolates the environment, validates against the Compose
 * Specification and normalises (deploy/compose-check). docker-compose.test.ts checks the file's text.
 */
const run = promisify(execFile);
/** What an operator sets before `docker compose up` (docker-compose.yml's first lines). */
const required = {
  POSTGRES_PASSWORD: 'owner-secret',
  TEMPORAL_DB_PASSWORD: 'temporal-secret',
  APP_DB_PASSWORD: 'app-secret',
  CURSOR_SECRET: 'cursor-secret',
  WORKFLOW_SEAL_KEY: 'workflow-seal-key',
  SECRETS_KEY: 'secrets-key',
  PAYLOAD_CODEC_KEYS: 'codec-keys',
  PUBLIC_BASE_URL: 'https://api.shop.example',
};
let binary: string;

interface Model {
  services: Record<
    string,
    {
      image?: string;
      restart?: string;
      ports?: { host_ip?: string; published?: string; target: number }[];
      environment?: Record<string, string | null>;
    }
  >;
}

async function config(env: Record<string, string>): Promise<{ model?: Model; error?: string }> {
  try {
    const { stdout } = await run(binary, ['docker-compose.yml'], { cwd: projectRoot, env: { PATH: process.env.PATH, ...env } });
    return { model: JSON.parse(stdout) as Model };
  } catch (error) {
    return { error: (error as { stderr?: string }).stderr ?? String(error) };
  }
}

beforeAll(async () => {
  binary = await composeCheck();
}, 300_000);

describe('docker compose config', () => {
  it('accepts the file with the production settings, as the Compose Specification reads it', async () => {
    const { model, error } = await config(required);
    expect(error).toBeUndefined();
    const { services } = model!;
    expect(Object.keys(services).sort()).toEqual([
      'api',
      'migrate',
      'postgres',
      'relay',
      'temporal',
      'temporal-register-search-attributes',
      'temporal-schema',
      'temporal-ui',
      'worker',
    ]);
    // Published on the host's loopback only: the API behind its TLS proxy, Temporal for operators.
    const published = Object.entries(services).flatMap(([name, service]) =>
      (service.ports ?? []).map((port) => `${name} ${port.host_ip}:${port.published}`),
    );
    expect(published.sort()).toEqual(['api 127.0.0.1:3000', 'temporal 127.0.0.1:7233', 'temporal-ui 127.0.0.1:8233']);
    expect(services.api!.environment).toMatchObject({
      PUBLIC_BASE_URL: 'https://api.shop.example',
      TRUST_PROXY: 'false',
      TEMPORAL_UI_URL: 'http://localhost:8233',
    });
    expect(services.api!.restart).toBe('unless-stopped');
  });

  it.each(Object.keys(required))('refuses to start without %s, and says which', async (name) => {
    const { [name as keyof typeof required]: _missing, ...rest } = required;
    const { model, error } = await config(rest);
    expect(model).toBeUndefined();
    expect(error).toContain(`required variable ${name} is missing a value`);
  });

  it('takes the address operators reach the Temporal Web UI at', async () => {
    const { model } = await config({ ...required, TEMPORAL_UI_URL: 'https://temporal.ops.example' });
    expect(model!.services.worker!.environment!.TEMPORAL_UI_URL).toBe('https://temporal.ops.example');
  });
});
