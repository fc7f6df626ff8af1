import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FlowHealth, flowHealth, FlowSparkline, flowSparklines } from '../../../domain/flows/index.js';
import { IdParams } from '../../../domain/kernel/index.js';
import { ADMIN_READ_PROBLEMS, problemResponses } from '../../schemas/problem.js';
import { assertMayReadFlows } from './flow-access.js';

const tags = ['Admin: flows'];

/** Flows' health at a glance (issue 32), read by whoever may read the flows' deliveries: a flow's hours for its chart, every flow's last day for the list's sparklines. */
export const flowHealthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/flows/health',
    {
      schema: {
        tags,
        summary: "Every flow's attempts per hour over the last 24 hours (the flows list's sparklines)",
        response: {
          200: z.object({ data: z.array(FlowSparkline) }),
          ...problemResponses(ADMIN_READ_PROBLEMS, 'insufficient-permission'),
        },
      },
    },
    async (request) => {
      assertMayReadFlows(request);
      return { data: await request.inShop(flowSparklines) };
    },
  );

  app.get(
    '/flows/:id/health',
    {
      schema: {
        tags,
        summary: "The flow's health: attempts, success rate and answer times per hour, over 24 hours and 7 days; the last failure",
        description:
          'From the recorded attempts, test-runs left out. p50 and p99 are of the attempts the receiver answered, read from fixed latency buckets (`latencyErrorPercent`).',
        params: IdParams,
        response: { 200: FlowHealth, ...problemResponses(ADMIN_READ_PROBLEMS, 'insufficient-permission', 'not-found') },
      },
    },
    async (request) => {
      assertMayReadFlows(request);
      return request.inShop((tx) => flowHealth(tx, request.params.id));
    },
  );
};
