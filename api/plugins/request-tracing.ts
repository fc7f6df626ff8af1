import { context, SpanKind, trace, type Span } from '@opentelemetry/api';
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { startSpan, TRACE_ATTRIBUTES } from '../../telemetry/tracing.js';
import { keyShopId } from './authentication.js';
import { sessionShopId } from './admin-session.js';

const kSpan = Symbol('span');
type WithSpan = { [kSpan]?: Span };

/**
 * One server span per request (registered where the process traces: telemetry/tracing.ts), named by its
 * method and route's pattern, with the caller's shop and the answer's status. The route's handler runs
 * in it, so what the handler writes (an outbox event) and starts carries the trace on.
 */
export const requestTracingPlugin = fp(async (app) => {
  app.addHook('onRequest', async (request: FastifyRequest & WithSpan) => {
    request[kSpan] = startSpan(request.method, { 'http.request.method': request.method }, SpanKind.SERVER);
  });
  // Activated only here, after the body is read: a stream's callbacks would not carry the context.
  app.addHook('preHandler', (request: FastifyRequest & WithSpan, _reply, done) => {
    const span = request[kSpan];
    if (!span) return done();
    const shopId = keyShopId(request) ?? sessionShopId(request);
    if (shopId) span.setAttribute(TRACE_ATTRIBUTES.shopId, shopId);
    context.with(trace.setSpan(context.active(), span), done);
  });
  app.addHook('onResponse', async (request: FastifyRequest & WithSpan, reply) => {
    const span = request[kSpan];
    if (!span) return;
    const route = request.routeOptions.url;
    if (route) span.updateName(`${request.method} ${route}`).setAttribute('http.route', route);
    span.setAttribute('http.response.status_code', reply.statusCode);
    span.end();
  });
});
