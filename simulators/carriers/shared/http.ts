import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { FaultPlan } from './faults.js';

/** What a simulated endpoint answers: an HTTP status and a JSON body in the carrier's own shape. */
export interface Answer {
  status: number;
  body: unknown;
}

export type Operation = (request: FastifyRequest) => Answer | Promise<Answer>;

export type CarrierRouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

export interface ListenOptions {
  port?: number;
  host?: string;
}

export function createCarrierServer(): FastifyInstance {
  // forceCloseConnections: close() also ends the requests a `timeout` fault leaves unanswered.
  const app = Fastify({ logger: false, forceCloseConnections: true, routerOptions: { ignoreTrailingSlash: true } });
  // Clients of both carriers send `Content-Type: application/json` on body-less POSTs (cancel): an empty body is no body.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(Object.assign(new Error('the body is not valid JSON'), { statusCode: 400 }), undefined);
    }
  });
  return app;
}

/** Listens and gives the base URL callers use (`http://127.0.0.1:<port>`). */
export async function listen(app: FastifyInstance, options: ListenOptions): Promise<string> {
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host });
  const { port } = app.server.address() as AddressInfo;
  const reachableHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${reachableHost}:${port}`;
}

/** A request header's value, trimmed; undefined when absent or blank. */
export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
}

/** A route handler that first meets the fault queued for its kind, if any, then runs the operation. */
export function faultable<Kind extends string>(
  faults: FaultPlan<Kind>,
  kind: Kind,
  unavailable: Answer,
  operation: Operation,
): CarrierRouteHandler {
  return async (request, reply) => {
    const fault = faults.take(kind);
    if (fault?.type === 'unavailable') return send(reply, unavailable);
    if (fault?.type === 'timeout') {
      // No answer at all: the socket stays open until the caller gives up or the server closes.
      if (fault.delayMs === undefined) return reply.hijack();
      await sleep(fault.delayMs);
    }
    const answer = await operation(request);
    if (fault?.type === 'slow-after-accept') await sleep(fault.delayMs);
    if (fault?.type === 'drop-after-accept') {
      reply.hijack();
      request.raw.socket.destroy();
      return reply;
    }
    return send(reply, answer);
  };
}

function send(reply: FastifyReply, answer: Answer): FastifyReply {
  return reply.code(answer.status).send(answer.body);
}
