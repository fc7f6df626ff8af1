import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ChatCommentSchema,
  ChatMessageSchema,
  getComment,
  listComments,
  replyPrivately,
  setCommentHidden,
} from '../../../domain/chat/index.js';
import { IdParams } from '../../../domain/kernel/index.js';
import { respondIdempotently } from '../../plugins/idempotency.js';
import { cursorBinding } from '../../route-deps.js';
import { pageOf, syncListQuery } from '../../schemas/list-query.js';
import { IDEMPOTENCY_PROBLEMS, LIST_PROBLEMS, READ_PROBLEMS, WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';
import { CHANNEL_PROBLEMS, CHAT_READ, CHAT_SEND, chatActor, MESSAGE_TEXT, type ChatRouteDeps } from './conversations.js';

const tags = ['Chat'];

/** Comments on the pages' posts: how an integrator finds them, answers privately, hides and shows them. */
export const commentRoutes: FastifyPluginAsyncZod<ChatRouteDeps> = async (app, deps) => {
  app.get(
    '/comments',
    {
      config: { permissions: CHAT_READ },
      schema: {
        operationId: 'listComments',
        tags,
        summary: "Comments on the key's pages, latest change first",
        querystring: syncListQuery.extend({
          updatedSince: syncListQuery.shape.updatedSince.describe('Inclusive, on updatedAt; only records older than the safety delay'),
          pageId: z.string().optional().describe("One of the key's pages"),
          postId: z.string().min(1).max(255).optional().describe("The platform's post id"),
        }),
        response: { 200: pageOf(ChatCommentSchema), ...problemResponses(LIST_PROBLEMS) },
      },
    },
    (request) =>
      request.inShop((tx) =>
        listComments(
          tx,
          request.query,
          request.auth.pageIds,
          cursorBinding(deps, request, 'comments'),
          request.auth.shop.recomputeCeilingSeconds,
        ),
      ),
  );

  app.get(
    '/comments/:id',
    {
      config: { permissions: CHAT_READ },
      schema: {
        operationId: 'getComment',
        summary: "A comment on one of the key's pages",
        tags,
        params: IdParams,
        response: { 200: ChatCommentSchema, ...problemResponses(READ_PROBLEMS, 'not-found') },
      },
    },
    (request) => request.inShop((tx) => getComment(tx, request.params.id, request.auth.pageIds)),
  );

  app.post(
    '/comments/:id/private-reply',
    {
      config: { permissions: CHAT_SEND, rateCounter: 'messages' },
      schema: {
        operationId: 'replyToCommentPrivately',
        tags,
        summary: "The one private message to the comment's author, text only",
        params: IdParams,
        body: z.strictObject({ text: MESSAGE_TEXT }),
        response: { 201: ChatMessageSchema, ...problemResponses(WRITE_PROBLEMS, IDEMPOTENCY_PROBLEMS, CHANNEL_PROBLEMS) },
      },
    },
    (request, reply) =>
      respondIdempotently(deps.sql, deps.publicBaseUrl, request, reply, 201, (tx) =>
        replyPrivately(tx, chatActor(request, deps), request.params.id, request.body.text),
      ),
  );

  for (const [verb, hidden] of [
    ['hide', true],
    ['show', false],
  ] as const) {
    app.post(
      `/comments/:id/${verb}`,
      {
        config: { permissions: CHAT_SEND },
        schema: {
          operationId: `${verb}Comment`,
          tags,
          summary: hidden ? 'Hide the comment from everyone but its author and their friends' : 'Show a hidden comment again',
          params: IdParams,
          response: { 200: ChatCommentSchema, ...problemResponses(WRITE_PROBLEMS, CHANNEL_PROBLEMS, 'conflict') },
        },
      },
      (request) => request.inShop((tx) => setCommentHidden(tx, chatActor(request, deps), request.params.id, hidden)),
    );
  }
};
