import { freePort, waitFor } from '../scripts/bootstrap/ports.js';
import { ProcessGroup } from '../scripts/processes.js';
import { startBenchProcess } from './built-platform.js';

export interface BenchContext {
  /** API keys spread over several shops and applications, so no key runs out of its per-minute budget. */
  keys: string[];
  durationSeconds: number;
  connections: number;
  /** Starts a server entry point as a child process on a free port; resolves with its base URL once it answers. */
  startServer: (name: string, entry: string, env?: Record<string, string>) => Promise<string>;
  stopServers: () => Promise<void>;
}

export function createBenchContext(options: {
  env: Record<string, string>;
  keys: string[];
  durationSeconds: number;
  connections: number;
}): BenchContext {
  let group = new ProcessGroup((name, code) => {
    throw new Error(`${name} exited during the benchmark (code ${code})`);
  });
  return {
    keys: options.keys,
    durationSeconds: options.durationSeconds,
    connections: options.connections,
    startServer: async (name, entry, env = {}) => {
      const port = await freePort(4100);
      startBenchProcess(group, name, entry, {
        ...options.env,
        ...env,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        NODE_ENV: 'test',
        CURSOR_SECRET: 'benchmark-cursor-secret-0123456789',
        DB_POOL_MAX: '10',
      });
      const url = `http://127.0.0.1:${port}`;
      await waitFor(name, async () => (await fetch(url).catch(() => undefined)) !== undefined, 30_000);
      return url;
    },
    stopServers: async () => {
      await group.stopAll();
      group = new ProcessGroup((name, code) => {
        throw new Error(`${name} exited during the benchmark (code ${code})`);
      });
    },
  };
}
