import type { KeyObject } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ChatAttachmentSchema,
  ChatConversationSchema,
  ChatMessageSchema,
  getConversation,
  listConversations,
  listMessages,
  sendChatMessage,
  type ChatActor,
  type ChatChannel,
} from '../../../domain/chat/index.js';
import { IdParams, NOT_BLANK } from '../../../domain/kernel/index.js';
import { respondIdempotently } from '../../plugins/idempotency.js';
import { cursorBinding, type RouteDeps } from '../../route-deps.js';
import { pageOf, syncListQuery } from '../../schemas/list-query.js';
import { IDEMPOTENCY_PROBLEMS, LIST_PROBLEMS, READ_PROBLEMS, WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

/** What the chat routes need beyond the others': the platform, and the key that opens page tokens. */
export interface ChatRouteDeps extends RouteDeps {
  channel: ChatChannel;
  secretsKey: KeyObject;
}

/** Reading chat records needs what reading their events needs (spec, Events, Catalogue). */
export const CHAT_READ = ['social.pages.read', 'social.conversations.read'];
/** Acting on the platform answers the record acted on, so it needs reading too. */
export const CHAT_SEND = [...CHAT_READ, 'social.messages.send'];

/** The platform's refusals and failures (adapters/chat-platform/platform-errors.ts), and the page scoping. */
export const CHANNEL_PROBLEMS = [
  'not-found',
  'messaging-window-closed',
  'page-not-connected',
  'conversation-not-replyable',
  'channel-unavailable',
] as const;

/** The Messenger Send API's limit on one text. */
export const MESSAGE_TEXT = z.string().trim().min(1).max(2000).meta(NOT_BLANK);

export function chatActor(request: FastifyRequest, deps: ChatRouteDeps): ChatActor {
  const { auth } = request;
  return {
    shopId: auth.shop.id,
    pageIds: auth.pageIds,
    applicationName: auth.applicationName,
    channel: deps.channel,
    secretsKey: deps.secretsKey,
  };
}

const NewMessage = z
  .strictObject({
    text: MESSAGE_TEXT.optional(),
    attachments: z.array(ChatAttachmentSchema).length(1).optional().describe('One attachment: the platform sends one per message'),
  })
  .refine((message) => (message.text === undefined) !== (message.attachments === undefined), {
    message: 'a message has either text or one attachment',
    path: ['text'],
  })
  .meta({ oneOf: [{ required: ['text'] }, { required: ['attachments'] }] });

const tags = ['Chat'];

/** Conversations and their messages: a thin HTTP shape over domain/chat. */
export const conversationRoutes: FastifyPluginAsyncZod<ChatRouteDeps> = async (app, deps) => {
  app.get(
    '/conversations',
    {
      config: { permissions: CHAT_READ },
      schema: {
        operationId: 'listConversations',
        tags,
        summary: "Conversations on the key's pages, newest last message first",
        querystring: syncListQuery.extend({
          updatedSince: syncListQuery.shape.updatedSince.describe('Inclusive, on lastMessageAt; only records older than the safety delay'),
          pageId: z.string().optional().describe("One of the key's pages"),
        }),
        response: { 200: pageOf(ChatConversationSchema), ...problemResponses(LIST_PROBLEMS) },
      },
    },
    (request) =>
      request.inShop((tx) =>
        listConversations(
          tx,
          request.query,
          request.auth.pageIds,
          cursorBinding(deps, request, 'conversations'),
          request.auth.shop.recomputeCeilingSeconds,
        ),
      ),
  );

  app.get(
    '/conversations/:id',
    {
      config: { permissions: CHAT_READ },
      schema: {
        operationId: 'getConversation',
        summary: 'A conversation with its customer',
        tags,
        params: IdParams,
        response: { 200: ChatConversationSchema, ...problemResponses(READ_PROBLEMS, 'not-found') },
      },
    },
    (request) => request.inShop((tx) => getConversation(tx, request.params.id, request.auth.pageIds)),
  );

  app.get(
    '/conversations/:id/messages',
    {
      config: { permissions: CHAT_READ },
      schema: {
        operationId: 'listMessages',
        tags,
        summary: 'Messages of a conversation, newest first',
        params: IdParams,
        querystring: syncListQuery.pick({ limit: true, cursor: true }),
        response: { 200: pageOf(ChatMessageSchema), ...problemResponses(LIST_PROBLEMS, 'not-found') },
      },
    },
    (request) =>
      request.inShop((tx) =>
        listMessages(tx, request.params.id, request.query, request.auth.pageIds, cursorBinding(deps, request, 'messages')),
      ),
  );

  app.post(
    '/conversations/:id/messages',
    {
      config: { permissions: CHAT_SEND, rateCounter: 'messages' },
      schema: {
        operationId: 'sendMessage',
        tags,
        summary: 'Send a message to the customer through the platform, synchronously',
        params: IdParams,
        body: NewMessage,
        response: { 201: ChatMessageSchema, ...problemResponses(WRITE_PROBLEMS, IDEMPOTENCY_PROBLEMS, CHANNEL_PROBLEMS) },
      },
    },
    (request, reply) => {
      const { text, attachments } = request.body;
      const content = text === undefined ? { attachment: attachments![0]! } : { text };
      return respondIdempotently(deps.sql, deps.publicBaseUrl, request, reply, 201, (tx) =>
        sendChatMessage(tx, chatActor(request, deps), request.params.id, content),
      );
    },
  );
};
