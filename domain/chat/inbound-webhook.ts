import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { PlatformCustomer } from './chat-customers.js';
import type { CommentChange } from './comments.js';
import type { PlatformMessage } from './messages.js';

/**
 * The platform's inbound webhook (Graph style): the `X-Hub-Signature-256` check over the exact body
 * bytes, and the body read into the items Shopflow records. Pure: the route verifies, then records.
 */

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/** Whether `header` is `sha256=<hex HMAC-SHA256 of rawBody under appSecret>`, compared in constant time. */
export function hasValidHubSignature(rawBody: Buffer | string, header: string | undefined, appSecret: string): boolean {
  const given = SIGNATURE.exec(header?.trim() ?? '')?.[1];
  if (!given) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

const webhookAttachment = z.object({ type: z.string(), payload: z.object({ url: z.string().optional() }).nullish() });
const messagingEvent = z.object({
  sender: z.object({ id: z.string() }),
  recipient: z.object({ id: z.string() }),
  timestamp: z.number(),
  message: z
    .object({
      mid: z.string().min(1),
      is_echo: z.boolean().optional(),
      text: z.string().optional(),
      attachments: z.array(webhookAttachment).optional(),
    })
    .optional(),
});
const commentValue = z.object({
  item: z.literal('comment'),
  verb: z.enum(['add', 'edited', 'remove', 'hide', 'unhide']),
  comment_id: z.string().min(1),
  post_id: z.string().min(1),
  parent_id: z.string().optional(),
  from: z.object({ id: z.string().min(1), name: z.string().optional() }),
  created_time: z.number(),
  message: z.string().optional(),
});
const feedChange = z.object({ field: z.string(), value: z.looseObject({ item: z.string().optional() }) });
const webhookBody = z.object({
  object: z.literal('page'),
  entry: z.array(
    z.object({
      id: z.string(),
      time: z.number().optional(),
      messaging: z.array(z.looseObject({})).optional(),
      changes: z.array(feedChange).optional(),
    }),
  ),
});

/** A customer wrote to the page, or (an echo) the page wrote to the customer. */
export interface InboundMessage extends PlatformMessage {
  kind: 'message' | 'echo';
  platformPageId: string;
  customer: PlatformCustomer;
}

export interface InboundCommentChange {
  kind: 'comment';
  platformPageId: string;
  change: CommentChange;
}

export type InboundItem = InboundMessage | InboundCommentChange;

const KNOWN_ATTACHMENT_TYPES = new Set(['image', 'video', 'audio', 'file']);

/**
 * The items of one webhook body, in body order. Throws on a body that is not a page webhook. Events
 * Shopflow does not record (reads, deliveries, postbacks, posts, reactions) are left out, and so are
 * attachments without a URL (locations, templates).
 */
export function parseInboundWebhook(rawBody: Buffer | string): InboundItem[] {
  const body = webhookBody.parse(JSON.parse(rawBody.toString()));
  return body.entry.flatMap((entry) => [
    ...(entry.messaging ?? []).flatMap((event) => messageItems(entry.id, event)),
    ...(entry.changes ?? []).flatMap((change) => commentItems(entry.id, entry.time, change)),
  ]);
}

function messageItems(platformPageId: string, raw: unknown): InboundMessage[] {
  const parsed = messagingEvent.safeParse(raw);
  if (!parsed.success || !parsed.data.message) return [];
  const { sender, recipient, timestamp, message } = parsed.data;
  const attachments = (message.attachments ?? []).flatMap((attachment) =>
    KNOWN_ATTACHMENT_TYPES.has(attachment.type) && attachment.payload?.url && z.url().safeParse(attachment.payload.url).success
      ? [{ type: attachment.type as 'image' | 'video' | 'audio' | 'file', url: attachment.payload.url }]
      : [],
  );
  if (message.text === undefined && attachments.length === 0) return [];
  const echo = message.is_echo === true;
  return [
    {
      kind: echo ? 'echo' : 'message',
      platformPageId,
      customer: { platformCustomerId: echo ? recipient.id : sender.id },
      platformMessageId: message.mid,
      text: message.text ?? null,
      attachments,
      sentAt: new Date(timestamp),
    },
  ];
}

/** `entryTime`: the feed entry's time in seconds (the comment's own time when absent). */
function commentItems(platformPageId: string, entryTime: number | undefined, change: z.infer<typeof feedChange>): InboundCommentChange[] {
  if (change.field !== 'feed' || change.value.item !== 'comment') return [];
  const value = commentValue.parse(change.value);
  return [
    {
      kind: 'comment',
      platformPageId,
      change: {
        verb: value.verb,
        platformCommentId: value.comment_id,
        postId: value.post_id,
        parentId: value.parent_id ?? null,
        author: { platformCustomerId: value.from.id, name: value.from.name ?? null },
        text: value.message ?? null,
        createdAt: new Date(value.created_time * 1000),
        changedAt: new Date((entryTime ?? value.created_time) * 1000),
      },
    },
  ];
}
