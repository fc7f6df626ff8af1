import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

export interface ReceivedCallback {
  /** Path and query as the carrier called them. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * A partner's callback endpoint for the carrier simulators: plain HTTP on loopback, callbacks kept
 * per path; `answerNext` scripts the statuses of the next callbacks to a path (then 200).
 */
export class CallbackInbox {
  private readonly received = new Map<string, ReceivedCallback[]>();
  private readonly scripted = new Map<string, number[]>();

  private readonly server: Server;

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(): Promise<CallbackInbox> {
    const server = createServer((incoming, response) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const url = incoming.url ?? '/';
        const path = new URL(url, 'http://inbox').pathname;
        const list = inbox.received.get(path) ?? [];
        list.push({ url, headers: incoming.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
        inbox.received.set(path, list);
        response.writeHead(inbox.scripted.get(path)?.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    const inbox = new CallbackInbox(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return inbox;
  }

  /** `http://127.0.0.1:<port><pathAndQuery>` */
  url(pathAndQuery: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${pathAndQuery}`;
  }

  /** What arrived at a path, in arrival order (the query is not part of the path). */
  at(path: string): ReceivedCallback[] {
    return this.received.get(path) ?? [];
  }

  answerNext(path: string, statuses: number[]): void {
    this.scripted.set(path, [...statuses]);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface JsonReply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- carrier bodies are read field by field in assertions
  body: any;
  elapsedMs: number;
}

/** One HTTP call to a simulator, the JSON answer parsed. */
export async function callJson(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: { headers?: Record<string, string>; body?: unknown; headersTimeout?: number } = {},
): Promise<JsonReply> {
  const started = Date.now();
  const response = await request(url, {
    method,
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    headersTimeout: options.headersTimeout,
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text ? (JSON.parse(text) as unknown) : null, elapsedMs: Date.now() - started };
}
