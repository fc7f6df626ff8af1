import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { Agent } from 'undici';
import { controlRoutes } from './control-routes.js';
import { faultGates } from './faults.js';
import { ControlError, GraphError, graphErrors } from './graph-errors.js';
import { graphRoutes } from './graph-routes.js';
import { ChatPlatform, type ChatPlatformOptions } from './platform.js';

export { ChatPlatform, DEFAULT_APP_SECRET, type ChatPlatformOptions } from './platform.js';
export { hubSignature256, type WebhookDelivery } from './webhooks.js';
export type { FaultEffect, FaultKind } from './faults.js';

export interface StartChatPlatformOptions extends Omit<ChatPlatformOptions, 'callbackDispatcher'> {
  port?: number;
  host?: string;
  /** A PEM CA to trust for HTTPS callbacks (the local receivers' self-signed certificate). */
  callbackCaPem?: string;
}

/** The running simulator: its base URL (the Graph API root) and the platform behind it. */
export interface RunningChatPlatform {
  url: string;
  platform: ChatPlatform;
  close(): Promise<void>;
}

/**
 * Starts the chat-platform simulator: the Graph API at `url` (`/v21.0/me/messages`, …) and the
 * controls under `url + /_control`.
 */
export async function startChatPlatform(options: StartChatPlatformOptions = {}): Promise<RunningChatPlatform> {
  const { port = 0, host = '127.0.0.1', callbackCaPem, ...platformOptions } = options;
  const callbackDispatcher = callbackCaPem ? new Agent({ connect: { ca: callbackCaPem } }) : undefined;
  const platform = new ChatPlatform({ ...platformOptions, callbackDispatcher });
  const server = buildServer(platform);
  await server.listen({ port, host });
  const address = server.server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    platform,
    close: async () => {
      await platform.close();
      server.server.closeAllConnections();
      await server.close();
      await callbackDispatcher?.close();
    },
  };
}

function buildServer(platform: ChatPlatform): FastifyInstance {
  // Graph paths may carry a version (`/v21.0/...`); the simulator answers every version alike.
  const server = Fastify({ rewriteUrl: (request) => (request.url ?? '/').replace(/^\/v\d+\.\d+(?=\/|$)/, '') || '/' });
  server.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  server.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error instanceof GraphError) return reply.code(error.httpStatus).send(error.body());
    if (error instanceof ControlError) return reply.code(error.httpStatus).send({ error: { message: error.message } });
    // Fastify's own refusals (malformed JSON, unsupported content type) are bad parameters to Graph.
    if (error.statusCode !== undefined && error.statusCode < 500)
      return reply.code(400).send(graphErrors.invalidParameter(error.message).body());
    return reply.code(500).send(graphErrors.unknownError().body());
  });
  const faultGate = faultGates(server, platform.faults);
  void server.register(controlRoutes(platform), { prefix: '/_control' });
  void server.register(graphRoutes(platform, faultGate));
  return server;
}
