import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, register } from 'prom-client';

export interface MetricsServer {
  /** Where Prometheus scrapes: `http://<host>:<port>/metrics`. */
  url: string;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  host: string;
  port: number;
  /**
   * Other exporters of the same process whose text is appended (the Temporal SDK's core exporter on
   * a loopback port): one scrape address per process, whatever collects its numbers.
   */
  alsoFrom?: string[];
}

/**
 * Serves the process's metrics (prom-client's default registry, with Node's process metrics) at
 * `GET /metrics` on a listener of its own, apart from the API's public port: by default on loopback,
 * where only the host's Prometheus reads them (docs/operators.md, "Metrics").
 */
export async function serveMetrics(options: MetricsServerOptions): Promise<MetricsServer> {
  collectDefaultMetrics();
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || new URL(request.url ?? '/', 'http://metrics').pathname !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    exposition(options.alsoFrom ?? []).then(
      (text) => response.writeHead(200, { 'content-type': register.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics not collected: ${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://${urlHost(options.host)}:${port}/metrics`, close: () => closeServer(server) };
}

async function exposition(alsoFrom: string[]): Promise<string> {
  const [own, ...others] = await Promise.all([
    register.metrics(),
    // An exporter that does not answer leaves its part out; the process's own numbers still go out.
    ...alsoFrom.map((url) =>
      fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
        (answer) => (answer.ok ? answer.text() : ''),
        () => '',
      ),
    ),
  ]);
  return [own, ...others].map((text) => (text.endsWith('\n') || text === '' ? text : `${text}\n`)).join('');
}

/** A loopback port free now, for an exporter that must be told its port (the Temporal SDK's). */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await closeServer(server);
  return port;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
