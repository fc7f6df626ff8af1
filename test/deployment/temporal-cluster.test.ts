import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { temporalEngine } from '../../scripts/bootstrap/temporal-cluster.js';
import {
  DYNAMIC_CONFIG_FILE,
  shopflowDynamicConfig,
  TEMPORAL_CONFIG_DIR,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
} from '../../scripts/bootstrap/temporal-server.js';
import { devDynamicConfig } from '../../scripts/bootstrap/temporal.js';

/**
 * docker-compose.yml describes the production shape but never runs here (no Docker engine):
 * `SHOPFLOW_TEMPORAL=cluster` runs the same server on this machine's PostgreSQL, and `npm test` runs
 * the workflow tests on it. What compose deploys is what was tested only while the two agree.
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const { services } = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, { image?: string; environment?: Record<string, string>; volumes?: string[] }>;
};
/** A template of the server's, its `{{ env … }}` values (ports, the database's address) filled in. */
const template = (name: string) =>
  parse(read(`${TEMPORAL_CONFIG_DIR}/${name}.yaml`).replace(/\{\{[^}]*\}\}/g, '1')) as {
    persistence: {
      numHistoryShards: number;
      defaultStore: string;
      visibilityStore: string;
      datastores: Record<string, { sql: { pluginName: string; databaseName: string; user: string } }>;
    };
    dynamicConfigClient: { filepath: string };
    services?: Record<string, unknown>;
  };
const cluster = template('cluster');
const imageTag = (service: string) => services[service]!.image!.split(':')[1];

describe('docker-compose.yml against the tested servers (config/temporal)', () => {
  it('runs the server, its admin tools and its Web UI at the versions the dev server and the cluster build', () => {
    expect([imageTag('temporal'), imageTag('temporal-register-search-attributes'), imageTag('temporal-ui')]).toEqual([
      TEMPORAL_SERVER_VERSION,
      TEMPORAL_SERVER_VERSION,
      TEMPORAL_UI_VERSION,
    ]);
  });

  it('mounts the dynamic configuration file the cluster reads, and the dev server takes the same settings', () => {
    const temporal = services.temporal!;
    expect(cluster.dynamicConfigClient.filepath).toBe(DYNAMIC_CONFIG_FILE);
    expect(temporal.volumes).toContain(`./${DYNAMIC_CONFIG_FILE}:${temporal.environment!.DYNAMIC_CONFIG_FILE_PATH}:ro`);
    expect(shopflowDynamicConfig()).toMatchObject({
      'system.enableEagerWorkflowStart': [{ value: true }],
      'system.enableActivityEagerExecution': [{ value: true }],
      'matching.enableFairness': [{ value: true }],
    });
    expect(devDynamicConfig()).toMatchObject(shopflowDynamicConfig());
  });

  it('runs the dev server as the cluster, on SQLite with one shard instead of PostgreSQL', () => {
    const dev = template('dev');
    // The four services are base.yaml's, which both load: neither environment has services of its own.
    expect(Object.keys(template('base').services ?? {})).toEqual(['frontend', 'history', 'matching', 'worker']);
    expect([dev.services, cluster.services]).toEqual([undefined, undefined]);
    expect(dev.persistence.numHistoryShards).toBe(1);
    expect(dev.persistence.datastores[dev.persistence.defaultStore]!.sql.pluginName).toBe('sqlite');
  });

  it('keeps the same history shards and the same stores: PostgreSQL persistence and SQL visibility, as the temporal role', () => {
    expect(Number(services.temporal!.environment!.NUM_HISTORY_SHARDS)).toBe(cluster.persistence.numHistoryShards);
    expect(cluster.persistence.numHistoryShards).toBeGreaterThan(1);
    const { datastores, defaultStore, visibilityStore } = cluster.persistence;
    expect([datastores[defaultStore]!.sql, datastores[visibilityStore]!.sql]).toEqual([
      expect.objectContaining({
        pluginName: services.temporal!.environment!.DB,
        databaseName: services.temporal!.environment!.DBNAME,
        user: 'temporal',
      }),
      expect.objectContaining({
        pluginName: 'postgres12',
        databaseName: services.temporal!.environment!.VISIBILITY_DBNAME,
        user: 'temporal',
      }),
    ]);
  });
});

describe('SHOPFLOW_TEMPORAL', () => {
  it('is the dev server unless it says cluster, and a wrong value is refused with what to write', () => {
    expect(temporalEngine({})).toBe('dev');
    expect(temporalEngine({ SHOPFLOW_TEMPORAL: '' })).toBe('dev');
    expect(temporalEngine({ SHOPFLOW_TEMPORAL: 'cluster' })).toBe('cluster');
    expect(() => temporalEngine({ SHOPFLOW_TEMPORAL: 'postgres' })).toThrow(
      /^SHOPFLOW_TEMPORAL="postgres" is not a choice: use "dev" .* or "cluster"/,
    );
  });
});
