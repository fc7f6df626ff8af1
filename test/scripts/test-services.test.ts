import { describe, expect, it } from 'vitest';
import { containerPlan, startTestContainers, testServicesChoice } from '../../scripts/test-services.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';
import { devDynamicConfig } from '../../scripts/bootstrap/temporal.js';

// This machine has no Docker engine: the containers themselves are not started here (docs/running.md, "Test
// services from containers"); what is checked is the choice, the fast failure without an engine, and the plan.
describe('SHOPFLOW_TEST_SERVICES', () => {
  it('picks the local binaries by default, and containers only when asked', () => {
    expect(testServicesChoice({})).toBe('local');
    expect(testServicesChoice({ SHOPFLOW_TEST_SERVICES: '' })).toBe('local');
    expect(testServicesChoice({ SHOPFLOW_TEST_SERVICES: 'local' })).toBe('local');
    expect(testServicesChoice({ SHOPFLOW_TEST_SERVICES: 'containers' })).toBe('containers');
  });

  it('refuses an unknown value, naming the variable and the two choices', () => {
    expect(() => testServicesChoice({ SHOPFLOW_TEST_SERVICES: 'docker' })).toThrow(
      /^SHOPFLOW_TEST_SERVICES="docker" is not a choice: use "local" .* or "containers"/,
    );
  });

  it('fails fast, saying what to do, when no Docker engine answers', async () => {
    const saved = process.env.DOCKER_HOST;
    // A port nothing listens on: the engine testcontainers is pointed at does not answer.
    process.env.DOCKER_HOST = 'tcp://127.0.0.1:1';
    const started = Date.now();
    try {
      await expect(startTestContainers()).rejects.toThrow(
        /^SHOPFLOW_TEST_SERVICES=containers, but no Docker engine answers .*Start Docker, or point DOCKER_HOST at one; or unset SHOPFLOW_TEST_SERVICES/,
      );
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('the containers’ plan', () => {
  const plan = containerPlan();

  it('runs PostgreSQL 15 as the superuser the bootstrap expects, with the local cluster’s settings', () => {
    expect(plan.postgres).toMatchObject({ image: 'postgres:15', username: 'postgres', database: 'postgres' });
    expect(plan.postgres.command).toEqual(
      expect.arrayContaining(['postgres', '-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'shared_buffers=256MB']),
    );
  });

  it('runs the Temporal CLI’s dev server reachable from the host, with every search attribute the project registers', () => {
    const { image, command, ports, ready } = plan.temporal;
    expect(image).toBe('temporalio/temporal:1.9.1');
    expect(command.slice(0, 2)).toEqual(['server', 'start-dev']);
    const flag = (name: string) => command[command.indexOf(name) + 1];
    expect(flag('--ip')).toBe('0.0.0.0');
    expect([Number(flag('--port')), Number(flag('--ui-port'))]).toEqual([ports.grpc, ports.ui]);
    const registered = command.flatMap((value, index) => (command[index - 1] === '--search-attribute' ? [value] : []));
    expect(registered).toEqual(Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => `${name}=${type}`));
    // The dev server's dynamic configuration, fairness included.
    const settings = command.flatMap((value, index) => (command[index - 1] === '--dynamic-config-value' ? [value] : []));
    expect(settings).toEqual(Object.entries(devDynamicConfig()).map(([name, [{ value }]]) => `${name}=${JSON.stringify(value)}`));
    expect(settings).toContain('matching.enableFairness=true');
    // The local dev server's SQLite pragmas (config/temporal/dev.yaml).
    const pragmas = command.flatMap((value, index) => (command[index - 1] === '--sqlite-pragma' ? [value] : []));
    expect(pragmas).toEqual(['journal_mode=wal', 'synchronous=off', 'cache_size=-262144']);
    // The banner the CLI prints once the frontend serves.
    expect(ready.test('Server:  0.0.0.0:7233')).toBe(true);
  });
});
