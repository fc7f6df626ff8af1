import type { KeyObject } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { assertHolds, createPage, listShopPages } from '../../../domain/access/index.js';
import { linkPage, PageLinkInputSchema, unlinkPage, type PageTokenOwner } from '../../../domain/chat/index.js';
import { IdParams, Name, NoContent } from '../../../domain/kernel/index.js';
import { ChatPage } from '../reference-lists.js';
import { ADMIN_READ_PROBLEMS, ADMIN_WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

const tags = ['Admin: shop set-up'];

/** The answers of a link's change: the page may be another shop's (404); linking asks the platform whose the token is. */
const LINK_PROBLEMS = [ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found'] as const;

/**
 * Chat pages of the shop set-up: a page, and its link to the platform page with the page access
 * token (sealed; it never comes back), proven by the platform (`ownerOf`), and removed. Reading needs
 * social.pages.read or settings.sales_channels, a change settings.sales_channels (a page is where
 * the shop sells).
 */
export const adminPageRoutes: FastifyPluginAsyncZod<{ secretsKey: KeyObject; ownerOf: PageTokenOwner }> = async (
  app,
  { secretsKey, ownerOf },
) => {
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
          ...problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'limit-reached'),
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
        summary: "Link the page to its platform page with the page's access token, once the platform confirms the token is that page's",
        description:
          'A token the platform refuses, or one of another page, is 422 page-not-connected, the same whether or not any shop holds the page. ' +
          'The latest proven link wins: another page linked to the platform page loses its link.',
        params: IdParams,
        body: PageLinkInputSchema,
        response: {
          200: z.object({ pageId: z.uuid(), platformPageId: z.string(), connected: z.literal(true) }),
          ...problemResponses(...LINK_PROBLEMS, 'page-not-connected', 'conflict', 'channel-unavailable'),
        },
      },
    },
    async (request) => {
      manage(request);
      const { platformPageId } = request.body;
      await request.inShop((tx) => linkPage(tx, request.admin.shopId, { ...request.body, pageId: request.params.id }, secretsKey, ownerOf));
      return { pageId: request.params.id, platformPageId, connected: true as const };
    },
  );

  app.delete(
    '/pages/:id/link',
    {
      schema: {
        tags,
        summary: 'Unlink the page from its platform page: its token is forgotten, its conversations stay',
        params: IdParams,
        response: { 204: NoContent, ...problemResponses(...LINK_PROBLEMS) },
      },
    },
    async (request, reply) => {
      manage(request);
      await request.inShop((tx) => unlinkPage(tx, request.params.id));
      return reply.status(204).send();
    },
  );
};
