import { z } from 'zod';
import { DAY_MS } from './clock.js';
import { graphErrors } from './graph-errors.js';
import type { ChatStore, Message, Page } from './store.js';

const MESSAGING_WINDOW_MS = DAY_MS;
/** The `HUMAN_AGENT` tag lets a person answer for 7 days after the customer's last message. */
const HUMAN_AGENT_WINDOW_MS = 7 * DAY_MS;
const PRIVATE_REPLY_WINDOW_MS = 7 * DAY_MS;
const SEND_CAP_WINDOW_MS = 60_000;

const attachmentSchema = z.object({
  type: z.enum(['image', 'video', 'audio', 'file']),
  payload: z.object({ url: z.url(), is_reusable: z.boolean().optional() }),
});

/** The Send API body (`POST /{page-id}/messages`). */
export const sendRequestSchema = z.object({
  recipient: z.union([z.object({ id: z.string().min(1) }).strict(), z.object({ comment_id: z.string().min(1) }).strict()]),
  messaging_type: z.enum(['RESPONSE', 'UPDATE', 'MESSAGE_TAG']).optional(),
  tag: z.string().optional(),
  message: z
    .object({ text: z.string().min(1).max(2000).optional(), attachment: attachmentSchema.optional() })
    .refine(
      (message) => (message.text === undefined) !== (message.attachment === undefined),
      'message must have either text or attachment',
    ),
});
export type SendRequest = z.infer<typeof sendRequestSchema>;

/**
 * The Send API's rules for one page. Checks run parameters first, then the recipient, then the
 * window, and the per-page cap last, so a refused send does not use up the page's minute.
 */
export function sendMessage(store: ChatStore, page: Page, request: SendRequest, now: Date): Message {
  return 'comment_id' in request.recipient
    ? sendPrivateReply(store, page, request.recipient.comment_id, request, now)
    : sendToCustomer(store, page, request.recipient.id, request, now);
}

function sendToCustomer(store: ChatStore, page: Page, psid: string, request: SendRequest, now: Date): Message {
  if (request.messaging_type === undefined) throw graphErrors.invalidParameter('messaging_type is required');
  if (request.messaging_type === 'MESSAGE_TAG' && request.tag !== 'HUMAN_AGENT') {
    throw graphErrors.invalidParameter(
      `tag must be HUMAN_AGENT (the only message tag this simulator models), not ${request.tag ?? 'missing'}`,
    );
  }
  const customer = store.customers.get(psid);
  if (!customer || customer.pageId !== page.id) throw graphErrors.noMatchingUser();
  if (!customer.available) throw graphErrors.userUnavailable();
  const conversation = store.findConversation(customer.psid);
  const window = request.messaging_type === 'MESSAGE_TAG' ? HUMAN_AGENT_WINDOW_MS : MESSAGING_WINDOW_MS;
  const lastWrote = conversation?.lastCustomerMessageAt;
  if (!conversation || !lastWrote || now.getTime() - lastWrote.getTime() > window) throw graphErrors.outsideWindow();
  takeSendSlot(page, now);
  return store.addMessage(conversation, { direction: 'from-page', ...content(request), createdAt: now });
}

/** One text message to a comment's author, once per comment, within 7 days of the comment. */
function sendPrivateReply(store: ChatStore, page: Page, commentId: string, request: SendRequest, now: Date): Message {
  const comment = store.comments.get(commentId);
  if (!comment || comment.pageId !== page.id || comment.removed) throw graphErrors.noSuchObject(commentId, 'post');
  if (request.message.attachment) throw graphErrors.invalidParameter('a private reply can only be text');
  if (comment.privatelyRepliedAt) throw graphErrors.alreadyRepliedPrivately();
  if (now.getTime() - comment.createdAt.getTime() > PRIVATE_REPLY_WINDOW_MS) throw graphErrors.privateReplyTooLate();
  const customer = store.customer(comment.psid);
  if (!customer.available) throw graphErrors.userUnavailable();
  takeSendSlot(page, now);
  comment.privatelyRepliedAt = now;
  // Only the customer's answer opens the 24-hour window: the reply itself does not.
  const conversation = store.conversationWith(customer, now);
  return store.addMessage(conversation, { direction: 'from-page', ...content(request), createdAt: now, privateReplyTo: comment.id });
}

/** The page's sliding minute: every token of the page draws on the same slots. */
function takeSendSlot(page: Page, now: Date): void {
  page.recentSendTimes = sendsInLastMinute(page, now);
  if (page.recentSendTimes.length >= page.sendCapPerMinute) throw graphErrors.pageSendCapReached();
  page.recentSendTimes.push(now.getTime());
}

export function sendsInLastMinute(page: Page, now: Date): number[] {
  return page.recentSendTimes.filter((sentAt) => sentAt > now.getTime() - SEND_CAP_WINDOW_MS);
}

function content(request: SendRequest): Pick<Message, 'text' | 'attachments'> {
  const { text, attachment } = request.message;
  return { text, attachments: attachment ? [{ type: attachment.type, url: attachment.payload.url }] : [] };
}
