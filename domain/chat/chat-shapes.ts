import { z } from 'zod';

/**
 * The chat records on the wire (Open API responses and the `data` of message events): one schema
 * each, types inferred. Shaped as Messenger and Zalo OA integrators know them: a conversation is
 * one page with one customer; messages carry text and/or attachments and who sent them.
 */

/** ISO 8601 UTC with milliseconds and `Z` (the database's `api_time`). */
const Timestamp = z.iso.datetime().describe('ISO 8601 UTC');

export const ChatAttachmentSchema = z
  .object({ type: z.enum(['image', 'video', 'audio', 'file']), url: z.url() })
  .meta({ id: 'ChatAttachment' });

/** The person on the customer side, as the page knows them, linked to the shop's customer by phone. */
export const ChatCustomerSchema = z
  .object({
    id: z.uuid(),
    name: z.string().nullable(),
    phone: z.string().nullable().describe('+84… when the platform gave a Vietnamese number'),
    customerId: z.uuid().nullable().describe("the shop's customer holding that phone, if any"),
  })
  .meta({ id: 'ChatCustomer' });

export const ChatConversationSchema = z
  .object({
    id: z.uuid(),
    pageId: z.uuid(),
    customer: ChatCustomerSchema,
    lastMessageAt: Timestamp,
    snippet: z.string().describe('the start of the newest message'),
    canReply: z.boolean().describe('the page is connected and the messaging window is open'),
    replyWindowEndsAt: Timestamp.nullable().describe("24 hours after the customer's last message; null before they write"),
    createdAt: Timestamp,
  })
  .meta({ id: 'ChatConversation' });

export const ChatSenderSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('customer'), chatCustomerId: z.uuid(), name: z.string().nullable() }),
    z.object({ type: z.literal('page'), name: z.string().nullable(), isIntegration: z.boolean() }),
  ])
  .meta({ id: 'ChatSender' });

export const ChatMessageSchema = z
  .object({
    id: z.uuid(),
    conversationId: z.uuid(),
    pageId: z.uuid(),
    direction: z.enum(['in', 'out']).describe('in: from the customer; out: from the page'),
    text: z.string().nullable(),
    attachments: z.array(ChatAttachmentSchema),
    sender: ChatSenderSchema,
    sentAt: Timestamp.describe("the platform's time of the message"),
  })
  .meta({ id: 'ChatMessage' });

export const ChatCommentSchema = z
  .object({
    id: z.uuid(),
    pageId: z.uuid(),
    postId: z.string().describe("the platform's post id"),
    parentId: z.string().nullable().describe('the comment answered, or the post for a top-level comment'),
    author: z.object({ chatCustomerId: z.uuid().nullable(), name: z.string().nullable() }),
    text: z.string().nullable(),
    isHidden: z.boolean(),
    canReplyPrivately: z.boolean().describe('no private reply yet, and within 7 days of the comment'),
    privatelyRepliedAt: Timestamp.nullable(),
    createdAt: Timestamp.describe("the platform's time of the comment"),
    updatedAt: Timestamp.describe("when Shopflow last recorded a change of it: the list's order and its updatedSince mark"),
    removedAt: Timestamp.nullable(),
  })
  .meta({ id: 'ChatComment' });

export type ChatAttachment = z.infer<typeof ChatAttachmentSchema>;
export type ChatCustomer = z.infer<typeof ChatCustomerSchema>;
export type ChatConversation = z.infer<typeof ChatConversationSchema>;
export type ChatSender = z.infer<typeof ChatSenderSchema>;
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type ChatComment = z.infer<typeof ChatCommentSchema>;
