import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type dockerignoreModule from '@balena/dockerignore';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';

/** The production shape in docker-compose.yml, read as compose reads it (no Docker engine runs here). */
interface Service {
  image?: string;
  build?: string;
  restart?: string;
  healthcheck?: { test: string[] };
  user?: string;
  cap_drop?: string[];
  security_opt?: string[];
  volumes?: string[];
  ports?: string[];
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
}
/** Docker's own matching of .dockerignore (testcontainers builds images with it). Its types declare an ES default export while the package sets module.exports. */
const dockerignore = createRequire(import.meta.url)('@balena/dockerignore') as typeof dockerignoreModule.default;
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
};
const { services } = compose;
const applicationServices = ['api', 'worker', 'relay'] as const;

describe('docker-compose.yml', () => {
  it('registers every search attribute of Shopflow with its type, as the bootstrap does for the dev server', () => {
    const [command] = services['temporal-register-search-attributes']!.command!;
    const registered = /for attribute in ([^;]+); do/.exec(command!)![1]!.trim().split(/\s+/);
    expect(registered).toEqual(Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => `${name}:${type}`));
  });

  it('publishes the API, the Temporal frontend and its Web UI on the host loopback only, nothing else', () => {
    for (const name of ['api', 'temporal', 'temporal-ui']) {
      expect(services[name]!.ports!.length).toBeGreaterThan(0);
      for (const port of services[name]!.ports!) expect(port).toMatch(/^127\.0\.0\.1:/);
    }
    expect(services.api!.ports).toEqual(['127.0.0.1:3000:3000']);
    for (const name of ['postgres', 'worker', 'relay', 'migrate', 'temporal-schema']) expect(services[name]!.ports).toBeUndefined();
  });

  it('restarts every long-running service, and runs the one-shot jobs once', () => {
    const oneShots = ['migrate', 'temporal-schema', 'temporal-register-search-attributes'];
    for (const [name, service] of Object.entries(services))
      expect({ name, restart: service.restart }).toEqual({ name, restart: oneShots.includes(name) ? 'no' : 'unless-stopped' });
  });

  it('checks the health of PostgreSQL, the API, the worker and the relay', () => {
    expect(services.postgres!.healthcheck!.test.join(' ')).toContain('pg_isready');
    const probes = {
      api: 'http://127.0.0.1:3000/healthz',
      worker: 'http://127.0.0.1:9465/metrics',
      relay: 'http://127.0.0.1:9466/metrics',
    };
    for (const [name, url] of Object.entries(probes)) expect(services[name]!.healthcheck!.test.join(' ')).toContain(url);
  });

  it("runs Temporal's server image, its schema laid out by its admin tools, never the development image, every image at a fixed version", () => {
    expect(services.temporal!.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    expect(services['temporal-schema']!.image).toMatch(/^temporalio\/admin-tools:\d+\.\d+\.\d+$/);
    expect(services.temporal!.depends_on).toMatchObject({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(services['temporal-schema']!.command!.join(' ')).toMatch(
      /setup-schema -v 0\.0;.*update-schema -d \/etc\/temporal\/schema\/postgresql\/v12\//,
    );
    expect(services['temporal-register-search-attributes']!.command!.join(' ')).toContain('temporal operator namespace create -n default');
    for (const [name, service] of Object.entries(services)) {
      if (service.build) continue;
      expect({ name, image: service.image }).toEqual({ name, image: expect.stringMatching(/^[a-z0-9/_-]+:\d+(\.\d+)+$/) });
      expect(service.image).not.toContain('auto-setup');
    }
  });

  it('requires PUBLIC_BASE_URL, explains TRUST_PROXY and keeps it off by default, and lets TEMPORAL_UI_URL be set', () => {
    for (const name of applicationServices) {
      const environment = services[name]!.environment!;
      expect(environment.PUBLIC_BASE_URL).toMatch(/^\$\{PUBLIC_BASE_URL:\?/);
      expect(environment.TRUST_PROXY).toBe('${TRUST_PROXY:-false}');
      expect(environment.TEMPORAL_UI_URL).toMatch(/^\$\{TEMPORAL_UI_URL:-/);
    }
    expect(read('docker-compose.yml')).toMatch(/set TRUST_PROXY to that proxy's address/);
  });

  it('gives the API, worker and relay only the application role, and the owner URL to the one-shot migration alone', () => {
    for (const name of applicationServices) {
      const environment = services[name]!.environment!;
      expect(environment.APP_DATABASE_URL).toMatch(/^postgres:\/\/shopflow_app:\$\{APP_DB_PASSWORD:\?/);
      expect(environment).not.toHaveProperty('DATABASE_URL');
      expect(services[name]!.depends_on).toMatchObject({ migrate: { condition: 'service_completed_successfully' } });
    }
    expect(services.migrate!.environment!.DATABASE_URL).toMatch(/^postgres:\/\/shopflow:/);
    expect(services.migrate!.command).toEqual(['node', 'scripts/migrate.js']);
  });

  it('sets the role password as the bootstrap does, and refuses to start without the production secrets', () => {
    expect(services.migrate!.environment!.APP_DB_PASSWORD).toBe('${APP_DB_PASSWORD:?set APP_DB_PASSWORD}');
    for (const name of applicationServices) {
      const environment = services[name]!.environment!;
      expect(environment.NODE_ENV).toBe('production');
      for (const secret of ['CURSOR_SECRET', 'WORKFLOW_SEAL_KEY', 'SECRETS_KEY'])
        expect(environment[secret]).toBe(`\${${secret}:?set ${secret}}`);
    }
    expect(read('docker-compose.yml')).not.toMatch(/change-me|PASSWORD: shopflow\b/);
  });

  it('runs every container as an unprivileged user, with no capabilities and no way to gain privileges', () => {
    for (const [name, service] of Object.entries(services)) {
      expect({ name, user: service.user }).toEqual({ name, user: expect.stringMatching(/^(?!root\b|0\b)\S+$/) });
      expect({ name, capDrop: service.cap_drop, securityOpt: service.security_opt }).toEqual({
        name,
        capDrop: ['ALL'],
        securityOpt: ['no-new-privileges:true'],
      });
    }
  });

  it("gives Temporal a database role of its own, never the PostgreSQL superuser's, and databases it need not create", () => {
    const postgres = services.postgres!.environment!;
    const temporal = services.temporal!.environment!;
    expect(temporal.POSTGRES_USER).toBe('temporal');
    expect(temporal.POSTGRES_USER).not.toBe(postgres.POSTGRES_USER);
    expect(temporal.POSTGRES_PWD).toBe('${TEMPORAL_DB_PASSWORD:?set TEMPORAL_DB_PASSWORD}');
    expect(postgres.TEMPORAL_DB_PASSWORD).toBe(temporal.POSTGRES_PWD);
    expect(temporal).toMatchObject({ DBNAME: 'temporal', VISIBILITY_DBNAME: 'temporal_visibility' });
    expect(services['temporal-schema']!.environment!.SQL_PASSWORD).toBe(temporal.POSTGRES_PWD);
    expect(services['temporal-schema']!.command!.join(' ')).toContain('-u temporal');
    // Nothing but the one-shot migration holds the superuser's password.
    for (const [name, service] of Object.entries(services)) {
      if (name !== 'postgres' && name !== 'migrate') expect(JSON.stringify(service)).not.toContain('POSTGRES_PASSWORD');
    }
    expect(services.postgres!.volumes).toContain('./deploy/postgres-init:/docker-entrypoint-initdb.d:ro');
  });
});

describe("the postgres container's init script", () => {
  const script = read('deploy/postgres-init/10-temporal-role.sh');
  const statements = script.split('\n').filter((line) => /^\s*(SELECT|ALTER|CREATE|GRANT|REVOKE)\b/.test(line));

  it('makes the temporal role without any power beyond its own databases', () => {
    const role = statements.find((line) => line.startsWith('ALTER ROLE temporal '))!;
    for (const attribute of ['NOSUPERUSER', 'NOCREATEDB', 'NOCREATEROLE', 'NOREPLICATION', 'NOBYPASSRLS'])
      expect(role).toContain(attribute);
    expect(role).toContain("PASSWORD :'password'");
    expect(script).toContain('password="$TEMPORAL_DB_PASSWORD"');
  });

  it("grants only Temporal's two databases, to Temporal alone, and keeps it out of Shopflow's", () => {
    expect(statements.filter((line) => /\bGRANT\b/.test(line))).toEqual([]);
    const owned = statements.filter((line) => /OWNER (TO )?temporal\b/.test(line) && !/OWNER TO temporal', c\.|regprocedure/.test(line));
    expect(owned).toEqual([
      "SELECT format('CREATE DATABASE %I OWNER temporal', name) FROM unnest(ARRAY['temporal', 'temporal_visibility']) AS name",
      'ALTER DATABASE temporal OWNER TO temporal;',
      'ALTER DATABASE temporal_visibility OWNER TO temporal;',
    ]);
    expect(statements).toContain('REVOKE ALL ON DATABASE temporal, temporal_visibility FROM PUBLIC;');
    expect(statements).toContain('REVOKE CONNECT, TEMPORARY ON DATABASE :"shopflow", postgres FROM PUBLIC;');
    // Only tables and routines inside Temporal's own databases change hands.
    expect(script).toMatch(/for database in temporal temporal_visibility; do/);
  });
});

describe('the image', () => {
  const ignored = dockerignore().add(read('.dockerignore'));

  it('leaves secrets, local data and the repository out of the build context', () => {
    const secret = [
      '.env',
      '.env.production',
      'config/.env',
      'deploy/.env.local',
      'production.env',
      '.npmrc',
      '.git/config',
      'node_modules/postgres/package.json',
      'coverage/index.html',
      'server.key',
      'config/tls/server.pem',
      'certs/ca.crt',
      'keystore.p12',
      // What sits in .data/ of a developer's clone: the cluster, Temporal, certificates, test output.
      ...readdirSync(new URL('../../.data/', import.meta.url)).map((entry) => `.data/${entry}`),
      '.data/certs/localhost.key',
      '.data/test-results.json',
    ];
    expect(secret.filter((path) => !ignored.ignores(path))).toEqual([]);
  });

  it('keeps what the processes run', () => {
    const needed = [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'api/server.ts',
      'workers/worker.ts',
      'workers/relay.ts',
      'scripts/migrate.ts',
      'db/migrations/20261122000001_application_role.sql',
      'domain/kernel/encrypted-secrets.ts',
      'web/dist/index.html',
    ];
    expect(needed.filter((path) => ignored.ignores(path))).toEqual([]);
  });

  it('bakes no secret in and runs as the unprivileged node user', () => {
    const instructions = read('Dockerfile')
      .split('\n')
      .filter((line) => /^[A-Z]+\s/.test(line));
    expect(instructions.filter((line) => /^(ENV|ARG)\b.*(PASSWORD|SECRET|KEY|TOKEN)/i.test(line))).toEqual([]);
    expect(instructions.filter((line) => /^COPY\b.*\.env\b/.test(line))).toEqual([]);
    const users = instructions.filter((line) => line.startsWith('USER '));
    expect(users.at(-1)).toBe('USER node');
    expect(instructions.indexOf(users.at(-1)!)).toBeLessThan(instructions.findIndex((line) => line.startsWith('CMD ')));
  });
});
