import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { observeRateLimitRefusal, observeRequest, type RequestArea } from '../../telemetry/http-metrics.js';
import { isUnderPrefix } from './route-area.js';

export interface RequestMetricsOptions {
  openApiPrefix: string;
  adminPrefix: string;
}

/**
 * Times and counts every answer the API gives, whatever gave it (a route, a refusal in a hook, the
 * 404 handler), by its route's pattern and status; a 429 also counts as a rate-limit refusal of its
 * area (telemetry/http-metrics.ts).
 */
export const requestMetricsPlugin = fp<RequestMetricsOptions>(async (app, options) => {
  const areaOf = (request: FastifyRequest): RequestArea => {
    if (isUnderPrefix(request, options.openApiPrefix)) return 'open_api';
    if (isUnderPrefix(request, options.adminPrefix)) return 'admin';
    return isUnderPrefix(request, '/platform') ? 'platform' : 'other';
  };
  app.addHook('onResponse', async (request, reply) => {
    observeRequest({
      method: request.method,
      route: request.routeOptions.url,
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
    if (reply.statusCode === 429) observeRateLimitRefusal(areaOf(request));
  });
});
