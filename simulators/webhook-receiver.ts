import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

export interface ReceivedRequest {
  receivedAt: Date;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ScriptedResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer only after this long (a slow receiver). */
  delayMs?: number;
}

/**
 * A local HTTPS endpoint standing in for an integrator's webhook receiver. Each path is an inbox
 * with its own scripted answers: they are used in order, the last one repeating (default 200).
 * Control over HTTP for people: `GET /_inbox/<path>` lists what arrived, `PUT /_script/<path>`
 * sets the answers (a JSON array of ScriptedResponse).
 */
export class WebhookReceiver {
  private readonly inboxes = new Map<string, ReceivedRequest[]>();
  private readonly scripts = new Map<string, ScriptedResponse[]>();
  private readonly waiters = new Set<() => void>();

  private readonly server: Server;

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(options: { cert: string; key: string; port?: number; host?: string }): Promise<WebhookReceiver> {
    const server = createServer({ cert: options.cert, key: options.key }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void receiver
          .handle(request.method ?? 'GET', request.url ?? '/', request.headers, Buffer.concat(chunks).toString('utf8'))
          .then((answer) => {
            response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
            response.end(answer.body ?? '');
          });
      });
    });
    const receiver = new WebhookReceiver(server);
    await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The https URL of an inbox (`https://localhost:<port>/<path>`). */
  url(path: string): string {
    return `https://localhost:${this.port}/${path.replace(/^\//, '')}`;
  }

  received(path: string): ReceivedRequest[] {
    return this.inboxes.get(normalise(path)) ?? [];
  }

  respondWith(path: string, responses: ScriptedResponse[]): void {
    this.scripts.set(normalise(path), [...responses]);
  }

  /** Resolves once `count` requests have reached `path`, or rejects after `timeoutMs`. */
  async waitFor(path: string, count: number, timeoutMs = 30_000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received(path).length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${path}: ${this.received(path).length} of ${count} requests arrived within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
    return this.received(path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(method: string, rawUrl: string, headers: IncomingHttpHeaders, body: string): Promise<ScriptedResponse> {
    const path = normalise(new URL(rawUrl, 'https://localhost').pathname);
    if (method === 'GET' && path.startsWith('_inbox/')) {
      return { status: 200, body: JSON.stringify(this.received(path.slice('_inbox/'.length))) };
    }
    if (method === 'PUT' && path.startsWith('_script/')) {
      try {
        this.respondWith(path.slice('_script/'.length), JSON.parse(body) as ScriptedResponse[]);
        return { status: 204 };
      } catch {
        return { status: 400, body: JSON.stringify({ error: 'the script must be a JSON array of {status, headers?, body?, delayMs?}' }) };
      }
    }
    const inbox = this.inboxes.get(path) ?? [];
    inbox.push({ receivedAt: new Date(), path, headers, body });
    this.inboxes.set(path, inbox);
    for (const wake of [...this.waiters]) wake();
    const script = this.scripts.get(path) ?? [];
    const answer = (script.length > 1 ? script.shift() : script[0]) ?? { status: 200, body: '{"ok":true}' };
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    return answer;
  }
}

function normalise(path: string): string {
  return path.replace(/^\/+/, '');
}
