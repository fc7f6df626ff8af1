import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { READ_PROBLEMS, problemResponses } from '../../schemas/problem.js';

const ShopSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    application: z.object({
      name: z.string(),
      permissions: z.array(z.string()),
      pageIds: z.array(z.uuid()).describe('Chat pages the key may use; empty without a chat permission'),
    }),
    readOnly: z.boolean().describe("true when the shop's plan has expired: reads work, writes return 402"),
  })
  .meta({ id: 'Shop' });

/** `GET /shop`: the smoke test of a key. Everything comes from the authentication lookup itself. */
export const shopRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/shop',
    {
      schema: {
        operationId: 'getShop',
        summary: 'The shop and application of the key',
        tags: ['Shop'],
        response: { 200: ShopSchema, ...problemResponses(READ_PROBLEMS) },
      },
    },
    async (request) => {
      const { auth } = request;
      // Applications without a chat permission store no pages (domain/access/applications.ts, resolvePages).
      return {
        id: auth.shop.id,
        slug: auth.shop.slug,
        name: auth.shop.name,
        application: { name: auth.applicationName, permissions: auth.permissions, pageIds: auth.pageIds },
        readOnly: auth.shop.plan === 'expired',
      };
    },
  );
};
