import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does with one request, in order; once the script is used up it forwards. It never
 * answers for the API: a scripted status is a fault between the client and the API (a gateway's 429
 * or 503), and `drop-after-forward` lets the real API do the work, then drops the connection.
 */
export type Step =
  'forward' | 'drop-after-forward' | 'corrupt-cursor' | { status: number; retryAfter?: string; body?: Record<string, unknown> };

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface FaultProxy {
  /** Base URL to give the client instead of the API's. */
  url: string;
  script: (...steps: Step[]) => void;
  seen: SeenRequest[];
  close: () => Promise<void>;
}

/** A loopback HTTP proxy in front of the real API, for faults the API itself never makes on demand. */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const steps: Step[] = [];
  const seen: SeenRequest[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers });
      const step = steps.shift() ?? 'forward';
      if (typeof step === 'object') {
        const body = JSON.stringify({
          type: 'about:blank',
          title: 'Scripted',
          status: step.status,
          code: 'scripted',
          detail: 'scripted',
          ...step.body,
        });
        response.writeHead(step.status, {
          'content-type': 'application/problem+json',
          ...(step.retryAfter ? { 'retry-after': step.retryAfter } : {}),
        });
        response.end(body);
        return;
      }
      const url = new URL(request.url ?? '/', target);
      if (step === 'corrupt-cursor' && url.searchParams.has('cursor')) url.searchParams.set('cursor', `${url.searchParams.get('cursor')}x`);
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
      ) as Record<string, string>;
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      void fetch(url, { method: request.method, headers, body }).then(async (upstream) => {
        const text = Buffer.from(await upstream.arrayBuffer());
        if (step === 'drop-after-forward') return void request.socket.destroy();
        const forwarded = Object.fromEntries(
          [...upstream.headers.entries()].filter(
            ([name]) => !['content-encoding', 'transfer-encoding', 'connection', 'content-length'].includes(name),
          ),
        );
        response.writeHead(upstream.status, forwarded).end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    script: (...more) => void steps.push(...more),
    seen,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
