import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/** The production shape in docker-compose.yml, read as compose reads it (no Docker engine runs here). */
interface Service {
  ports?: string[];
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
}
const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const { services } = compose;
const applicationServices = ['api', 'worker', 'relay'] as const;

describe('docker-compose.yml', () => {
  it('publishes the Temporal frontend and Web UI on the host loopback only, and the API', () => {
    for (const name of ['temporal', 'temporal-ui']) {
      expect(services[name]!.ports!.length).toBeGreaterThan(0);
      for (const port of services[name]!.ports!) expect(port).toMatch(/^127\.0\.0\.1:/);
    }
    expect(services.api!.ports).toEqual(['3000:3000']);
    for (const name of ['postgres', 'worker', 'relay', 'migrate']) expect(services[name]!.ports).toBeUndefined();
  });

  it('gives the API, worker and relay only the application role, and the owner URL to the one-shot migration alone', () => {
    for (const name of applicationServices) {
      const environment = services[name]!.environment!;
      expect(environment.APP_DATABASE_URL).toMatch(/^postgres:\/\/shopflow_app:\$\{APP_DB_PASSWORD:\?/);
      expect(environment).not.toHaveProperty('DATABASE_URL');
      expect(services[name]!.depends_on).toMatchObject({ migrate: { condition: 'service_completed_successfully' } });
    }
    expect(services.migrate!.environment!.DATABASE_URL).toMatch(/^postgres:\/\/shopflow:/);
    expect(services.migrate!.command).toEqual(['npx', 'tsx', 'scripts/migrate.ts']);
  });

  it('sets the role password as the bootstrap does, and refuses to start without the production secrets', () => {
    expect(services.migrate!.environment!.APP_DB_PASSWORD).toBe('${APP_DB_PASSWORD:?set APP_DB_PASSWORD}');
    for (const name of applicationServices) {
      const environment = services[name]!.environment!;
      expect(environment.NODE_ENV).toBe('production');
      for (const secret of ['CURSOR_SECRET', 'DELIVERY_REQUEST_KEY', 'SECRETS_KEY'])
        expect(environment[secret]).toBe(`\${${secret}:?set ${secret}}`);
    }
    expect(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8')).not.toMatch(/change-me|PASSWORD: shopflow\b/);
  });
});
