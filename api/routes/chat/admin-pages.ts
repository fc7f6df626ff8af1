import type { KeyObject } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { assertHolds, createPage, listShopPages } from '../../../domain/access/index.js';
import { linkPage } from '../../../domain/chat/index.js';
import { IdParams, Name } from '../../../domain/kernel/index.js';
import { ChatPage } from '../reference-lists.js';
import { ADMIN_READ_PROBLEMS, ADMIN_WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

const tags = ['Admin: shop set-up'];

/**
 * Chat pages of the shop set-up: a page, and its link to the platform page with the page access
 * token (sealed; it never comes back). Reading needs social.pages.read or settings.sales_channels,
 * a change settings.sales_channels (a page is where the shop sells).
 */
export const adminPageRoutes: FastifyPluginAsyncZod<{ secretsKey: KeyObject }> = async (app, { secretsKey }) => {
  const manage = (request: FastifyRequest) => assertHolds(request.admin.permissions, ['settings.sales_channels'], 'setting up chat pages');
  const view = (request: FastifyRequest) => {
    if (!request.admin.permissions.includes('social.pages.read')) manage(request);
  };

  app.get(
    '/pages',
    {
      schema: {
        tags,
        response: { 200: z.object({ data: z.array(ChatPage) }), ...problemResponses(ADMIN_READ_PROBLEMS, 'insufficient-permission') },
      },
    },
    async (request) => {
      view(request);
      return { data: await request.inShop(listShopPages) };
    },
  );

  app.post(
    '/pages',
    {
      schema: {
        tags,
        body: z.strictObject({ name: Name }),
        response: {
          201: z.object({ id: z.uuid(), name: z.string() }),
          ...problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission'),
        },
      },
    },
    async (request, reply) => {
      manage(request);
      return reply.status(201).send(await request.inShop((tx) => createPage(tx, request.admin.shopId, request.body.name)));
    },
  );

  app.post(
    '/pages/:id/link',
    {
      schema: {
        tags,
        summary: "Link the page to its platform page with the page's access token",
        params: IdParams,
        body: z.strictObject({ platformPageId: z.string().regex(/^\d{1,30}$/), accessToken: z.string().min(1).max(2000) }),
        response: {
          200: z.object({ pageId: z.uuid(), platformPageId: z.string(), connected: z.literal(true) }),
          ...problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found'),
        },
      },
    },
    async (request) => {
      manage(request);
      const { platformPageId, accessToken } = request.body;
      await request.inShop((tx) =>
        linkPage(tx, request.admin.shopId, { pageId: request.params.id, platformPageId, accessToken }, secretsKey),
      );
      return { pageId: request.params.id, platformPageId, connected: true as const };
    },
  );
};
