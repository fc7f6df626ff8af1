import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Sql } from '../../db/client.js';
import type { Connection } from '@temporalio/client';

const checkState = z.enum(['ok', 'unavailable']);

/** Liveness and readiness, outside the versioned API. */
export const healthRoutes: FastifyPluginAsyncZod<{ sql: Sql; temporal: Connection }> = async (app, { sql, temporal }) => {
  app.get('/healthz', { schema: { hide: true, response: { 200: z.object({ status: z.literal('ok') }) } } }, async () => ({
    status: 'ok' as const,
  }));

  const readiness = z.object({ status: checkState, checks: z.object({ postgres: checkState, temporal: checkState }) });
  app.get('/readyz', { schema: { hide: true, response: { 200: readiness, 503: readiness } } }, async (_request, reply) => {
    const [postgres, temporalState] = await Promise.all([settle(sql`select 1`), settle(temporal.workflowService.getSystemInfo({}))]);
    const ready = postgres === 'ok' && temporalState === 'ok';
    return reply.status(ready ? 200 : 503).send({
      status: ready ? 'ok' : 'unavailable',
      checks: { postgres, temporal: temporalState },
    });
  });
};

async function settle(probe: PromiseLike<unknown>): Promise<'ok' | 'unavailable'> {
  try {
    await Promise.race([probe, new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2_000).unref())]);
    return 'ok';
  } catch {
    return 'unavailable';
  }
}
