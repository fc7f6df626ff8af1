import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ControlError } from './graph-errors.js';
import type { ChatPlatform } from './platform.js';
import { sendsInLastMinute } from './send-api.js';
import type { App, Page } from './store.js';

type Id<Name extends string> = { Params: Record<Name, string> };

const timestamp = z.iso.datetime({ offset: true }).transform((text) => new Date(text));
const webhookFields = z.array(z.enum(['messages', 'message_echoes', 'feed']));

const appSchema = z.object({
  secret: z.string().min(1).optional(),
  callbackUrl: z.url().optional(),
  verifyToken: z.string().optional(),
  fields: webhookFields.optional(),
});
const numericIdSchema = z.string().regex(/^\d{1,20}$/);
const pageSchema = z.object({
  name: z.string().min(1),
  id: numericIdSchema.optional(),
  appId: z.string().optional(),
  sendCapPerMinute: z.number().int().min(0).optional(),
});
const tokenSchema = z.object({ expiresAt: timestamp.optional() });
const sendCapSchema = z.object({ sendCapPerMinute: z.number().int().min(0) });
const customerSchema = z.object({ name: z.string().min(1), phone: z.string().optional(), psid: numericIdSchema.optional() });
const availabilitySchema = z.object({ available: z.boolean() });
const customerMessageSchema = z
  .object({
    text: z.string().min(1).optional(),
    attachments: z.array(z.object({ type: z.enum(['image', 'video', 'audio', 'file']), url: z.url() })).optional(),
    at: timestamp.optional(),
    webhook: z.boolean().optional(),
  })
  .refine((message) => message.text !== undefined || (message.attachments?.length ?? 0) > 0, 'a message needs text or attachments');
const postSchema = z.object({ message: z.string().min(1), at: timestamp.optional() });
const commentSchema = z.object({
  psid: z.string().min(1),
  message: z.string().min(1),
  parentId: z.string().optional(),
  at: timestamp.optional(),
});
const commentEditSchema = z.object({ message: z.string().min(1) });
const clockSchema = z.union([z.object({ advanceMs: z.number().int().min(0) }).strict(), z.object({ at: timestamp }).strict()]);
const faultSchema = z.object({
  kind: z.enum(['send', 'moderate', 'read']),
  effect: z.enum(['unavailable', 'throttled', 'timeout', 'drop-after-accept']),
  count: z.number().int().min(1).default(1),
  delayMs: z.number().int().min(0).optional(),
});
const pageFilterSchema = z.object({ pageId: z.string().optional() });

/**
 * `/_control/...`: what customers do, and the knobs tests and people turn. Not part of the real
 * platform; an adapter never calls these. Each route calls one `ChatPlatform` method.
 */
export function controlRoutes(platform: ChatPlatform) {
  return async (app: FastifyInstance) => {
    app.get('/', async () => ({
      now: platform.clock.now(),
      apps: [...platform.store.apps.values()].map(appView),
      pages: [...platform.store.pages.values()].map((page) => pageView(platform, page)),
      faults: platform.faults.list(),
    }));

    app.post('/apps', async (request, reply) => reply.code(201).send(appView(platform.createApp(parse(appSchema, request.body)))));

    app.post('/pages', async (request, reply) => {
      const { page } = platform.createPage(parse(pageSchema, request.body));
      return reply.code(201).send(pageView(platform, page));
    });
    app.patch<Id<'pageId'>>('/pages/:pageId', async (request) =>
      pageView(platform, platform.setSendCap(request.params.pageId, parse(sendCapSchema, request.body).sendCapPerMinute)),
    );
    app.post<Id<'pageId'>>('/pages/:pageId/tokens', async (request, reply) =>
      reply.code(201).send({ accessToken: platform.issuePageToken(request.params.pageId, parse(tokenSchema, request.body)) }),
    );
    app.post<Id<'pageId'>>('/pages/:pageId/disconnect', async (request) =>
      pageView(platform, platform.disconnectPage(request.params.pageId)),
    );
    app.post<Id<'pageId'>>('/pages/:pageId/reconnect', async (request) => {
      const { page, accessToken } = platform.reconnectPage(request.params.pageId);
      return { ...pageView(platform, page), accessToken };
    });

    app.post<Id<'pageId'>>('/pages/:pageId/customers', async (request, reply) =>
      reply.code(201).send(platform.createCustomer(request.params.pageId, parse(customerSchema, request.body))),
    );
    app.patch<Id<'psid'>>('/customers/:psid', async (request) =>
      platform.setCustomerAvailable(request.params.psid, parse(availabilitySchema, request.body).available),
    );
    app.post<Id<'psid'>>('/customers/:psid/messages', async (request, reply) =>
      reply.code(201).send(platform.customerWrites(request.params.psid, parse(customerMessageSchema, request.body))),
    );

    app.post<Id<'pageId'>>('/pages/:pageId/posts', async (request, reply) =>
      reply.code(201).send(platform.createPost(request.params.pageId, parse(postSchema, request.body))),
    );
    app.post<Id<'postId'>>('/posts/:postId/comments', async (request, reply) =>
      reply.code(201).send(platform.customerComments(request.params.postId, parse(commentSchema, request.body))),
    );
    app.get<Id<'commentId'>>('/comments/:commentId', async (request) => platform.store.comment(request.params.commentId));
    app.patch<Id<'commentId'>>('/comments/:commentId', async (request) =>
      platform.customerEditsComment(request.params.commentId, parse(commentEditSchema, request.body).message),
    );
    app.delete<Id<'commentId'>>('/comments/:commentId', async (request) => platform.customerRemovesComment(request.params.commentId));

    app.get('/clock', async () => ({ now: platform.clock.now() }));
    app.post('/clock', async (request) => {
      const move = parse(clockSchema, request.body);
      return { now: 'advanceMs' in move ? platform.clock.advance(move.advanceMs) : platform.clock.set(move.at) };
    });

    app.get('/faults', async () => platform.faults.list());
    app.post('/faults', async (request, reply) => reply.code(201).send(platform.faults.inject(parse(faultSchema, request.body))));
    app.delete('/faults', async (_request, reply) => {
      platform.faults.clear();
      return reply.code(204).send();
    });

    app.get('/sent', async (request) => platform.sentMessages(parse(pageFilterSchema, request.query).pageId));
    app.get('/webhooks', async () => platform.webhookDeliveries());

    app.setNotFoundHandler((request) => {
      throw new ControlError(404, `no control ${request.method} ${request.url}`);
    });
  };
}

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw new ControlError(400, result.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; '));
}

function appView(app: App) {
  return { id: app.id, secret: app.secret, callbackUrl: app.callbackUrl, verifyToken: app.verifyToken, fields: [...app.fields] };
}

function pageView(platform: ChatPlatform, page: Page) {
  const { recentSendTimes: _sendTimes, ...fields } = page;
  const accessTokens = platform.store
    .tokensOf(page.id)
    .filter((token) => !token.revoked)
    .map((token) => token.token);
  return { ...fields, sentInLastMinute: sendsInLastMinute(page, platform.clock.now()).length, accessTokens };
}
