import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { graphTime } from './clock.js';
import type { FaultGate } from './faults.js';
import { graphErrors } from './graph-errors.js';
import { pageNewestFirst } from './paging.js';
import type { ChatPlatform } from './platform.js';
import { sendRequestSchema } from './send-api.js';
import type { Comment, Conversation, Message, Page } from './store.js';

type NodeParams = { Params: { nodeId: string } };

const booleanParameter = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]);
const hideSchema = z.object({ is_hidden: booleanParameter });
const listingSchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  after: z.string().min(1).optional(),
  user_id: z.string().optional(),
});
const subscriptionSchema = z.object({
  object: z.literal('page'),
  callback_url: z.url(),
  verify_token: z.string().min(1),
  fields: z
    .union([z.array(z.string()), z.string().transform((fields) => fields.split(','))])
    .pipe(z.array(z.enum(['messages', 'message_echoes', 'feed'])).min(1)),
});

/**
 * The Graph API surface an adapter calls, with or without a version prefix (`/v21.0/...`; the
 * server strips it). `me` stands for the token's page (`GET /me` answers `{ id, name }`: whose
 * token it is). The page access token comes as the `access_token` parameter or an
 * `Authorization: Bearer` header.
 */
export function graphRoutes(platform: ChatPlatform, faultGate: FaultGate) {
  return async (app: FastifyInstance) => {
    app.post<NodeParams>('/:nodeId/messages', { preHandler: faultGate('send') }, async (request) => {
      const page = pageNamed(platform, request);
      const message = platform.sendMessage(page, parse(sendRequestSchema, graphParameters(request)));
      return { recipient_id: message.psid, message_id: message.mid };
    });

    app.get<NodeParams>('/:nodeId/conversations', { preHandler: faultGate('read') }, async (request) => {
      const page = pageNamed(platform, request);
      const listing = parse(listingSchema, graphParameters(request));
      const conversations = [...platform.store.conversations.values()].filter(
        (conversation) => conversation.pageId === page.id && (listing.user_id === undefined || conversation.psid === listing.user_id),
      );
      return pageNewestFirst(
        conversations,
        (conversation) => [conversation.updatedAt.getTime(), lastSequence(platform, conversation)],
        { ...listing, nextUrl: (after) => nextUrl(request, after) },
        (conversation) => conversationView(platform, page, conversation),
      );
    });

    app.get<NodeParams>('/:nodeId/messages', { preHandler: faultGate('read') }, async (request) => {
      const page = platform.pageForToken(accessToken(request));
      const conversation = platform.store.conversations.get(request.params.nodeId);
      if (!conversation || conversation.pageId !== page.id) throw graphErrors.noSuchObject(request.params.nodeId, 'get');
      const listing = parse(listingSchema, graphParameters(request));
      return pageNewestFirst(
        platform.store.messages.filter((message) => message.conversationId === conversation.id),
        (message) => [message.createdAt.getTime(), message.sequence],
        { ...listing, nextUrl: (after) => nextUrl(request, after) },
        (message) => messageView(platform, page, message),
      );
    });

    app.post<NodeParams>('/:nodeId/subscriptions', async (request) => {
      const subscribing = appForToken(platform, accessToken(request), request.params.nodeId);
      const subscription = parse(subscriptionSchema, graphParameters(request));
      await platform.subscribeApp(subscribing, {
        callbackUrl: subscription.callback_url,
        verifyToken: subscription.verify_token,
        fields: subscription.fields,
      });
      return { success: true };
    });

    app.post<NodeParams>('/:nodeId', { preHandler: faultGate('moderate') }, async (request) => {
      const page = platform.pageForToken(accessToken(request));
      const { is_hidden } = parse(hideSchema, graphParameters(request));
      platform.setCommentHidden(page, request.params.nodeId, is_hidden);
      return { success: true };
    });

    app.get<NodeParams>('/:nodeId', { preHandler: faultGate('read') }, async (request) => {
      const token = accessToken(request);
      const page = request.params.nodeId === 'me' ? platform.pageForMe(token) : platform.pageForToken(token);
      return nodeView(platform, page, request.params.nodeId);
    });

    app.setNotFoundHandler((request) => {
      throw graphErrors.unknownPath(new URL(request.url, 'http://graph').pathname);
    });
  };
}

/** The page of `/{page-id}/...` or `/me/...`, which must be the token's page. */
function pageNamed(platform: ChatPlatform, request: FastifyRequest<NodeParams>): Page {
  const page = platform.pageForToken(accessToken(request));
  const { nodeId } = request.params;
  if (nodeId !== 'me' && nodeId !== page.id) throw graphErrors.noSuchObject(nodeId, request.method === 'GET' ? 'get' : 'post');
  return page;
}

/** App calls use an app access token: `<app-id>|<app-secret>`. */
function appForToken(platform: ChatPlatform, token: string | undefined, appId: string) {
  if (!token) throw graphErrors.missingToken();
  const [tokenAppId, secret] = token.split('|');
  const app = platform.store.apps.get(tokenAppId ?? '');
  if (!app || app.secret !== secret) throw graphErrors.invalidToken();
  if (appId !== app.id) throw graphErrors.noSuchObject(appId, 'post');
  return app;
}

function accessToken(request: FastifyRequest): string | undefined {
  const [scheme, credentials] = (request.headers.authorization ?? '').split(' ');
  if (credentials && (scheme === 'Bearer' || scheme === 'OAuth')) return credentials;
  const parameter = graphParameters(request).access_token;
  return typeof parameter === 'string' ? parameter : undefined;
}

/**
 * Graph takes parameters in the query string, a form body or a JSON body alike; in the first two a
 * structured value (`recipient={"id":"…"}`) is JSON text.
 */
function graphParameters(request: FastifyRequest): Record<string, unknown> {
  const body = request.body && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
  const merged: Record<string, unknown> = { ...(request.query as Record<string, unknown>), ...body };
  for (const [name, value] of Object.entries(merged)) {
    if (typeof value === 'string' && /^\s*[[{]/.test(value)) {
      try {
        merged[name] = JSON.parse(value);
      } catch {
        // Left as text: the schema then says what is wrong with it.
      }
    }
  }
  return merged;
}

function parse<T>(schema: z.ZodType<T>, parameters: Record<string, unknown>): T {
  const result = schema.safeParse(parameters);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw graphErrors.invalidParameter(`${issue?.path.join('.') || 'parameters'}: ${issue?.message ?? 'invalid'}`);
}

function nextUrl(request: FastifyRequest, after: string): string {
  const url = new URL(request.originalUrl, `${request.protocol}://${request.host}`);
  url.searchParams.set('after', after);
  return url.toString();
}

function lastSequence(platform: ChatPlatform, conversation: Conversation): number {
  return platform.store.messages.reduce(
    (last, message) => (message.conversationId === conversation.id ? Math.max(last, message.sequence) : last),
    0,
  );
}

function conversationView(platform: ChatPlatform, page: Page, conversation: Conversation) {
  const customer = platform.store.customer(conversation.psid);
  return {
    id: conversation.id,
    updated_time: graphTime(conversation.updatedAt),
    message_count: platform.store.messages.filter((message) => message.conversationId === conversation.id).length,
    participants: {
      data: [
        { id: customer.psid, name: customer.name },
        { id: page.id, name: page.name },
      ],
    },
  };
}

function messageView(platform: ChatPlatform, page: Page, message: Message) {
  const customer = { id: message.psid, name: platform.store.customer(message.psid).name };
  const pageParty = { id: page.id, name: page.name };
  const [from, to] = message.direction === 'from-customer' ? [customer, pageParty] : [pageParty, customer];
  return {
    id: message.mid,
    created_time: graphTime(message.createdAt),
    from,
    to: { data: [to] },
    message: message.text ?? '',
    ...(message.attachments.length === 0
      ? {}
      : {
          attachments: {
            data: message.attachments.map((attachment, index) => ({
              id: `${message.mid}_${index}`,
              type: attachment.type,
              ...(attachment.type === 'image' ? { image_data: { url: attachment.url } } : { file_url: attachment.url }),
            })),
          },
        }),
  };
}

function commentView(platform: ChatPlatform, comment: Comment) {
  const author = platform.store.customer(comment.psid);
  return {
    id: comment.id,
    message: comment.message,
    from: { id: author.psid, name: author.name },
    created_time: graphTime(comment.createdAt),
    is_hidden: comment.hidden,
    can_reply_privately: comment.privatelyRepliedAt === undefined,
    parent: { id: comment.parentId ?? comment.postId },
  };
}

/**
 * `GET /{id}`: the page (`me`), one of its comments, posts or conversations, or a customer's profile
 * (the User Profile API; `phone` is a Zalo OA-style addition Messenger does not give).
 */
function nodeView(platform: ChatPlatform, page: Page, nodeId: string): object {
  const { store } = platform;
  if (nodeId === 'me' || nodeId === page.id) return { id: page.id, name: page.name };
  const comment = store.comments.get(nodeId);
  if (comment && comment.pageId === page.id && !comment.removed) return commentView(platform, comment);
  const post = store.posts.get(nodeId);
  if (post && post.pageId === page.id) return { id: post.id, message: post.message, created_time: graphTime(post.createdAt) };
  const conversation = store.conversations.get(nodeId);
  if (conversation && conversation.pageId === page.id) return conversationView(platform, page, conversation);
  const customer = store.customers.get(nodeId);
  if (customer && customer.pageId === page.id) {
    const [firstName, ...rest] = customer.name.split(' ');
    return {
      id: customer.psid,
      name: customer.name,
      first_name: firstName,
      last_name: rest.join(' '),
      ...(customer.phone ? { phone: customer.phone } : {}),
    };
  }
  throw graphErrors.noSuchObject(nodeId, 'get');
}
