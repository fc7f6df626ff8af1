import { writeEvent } from '../events/index.js';
import { allAnswered, syncedPage, type CursorBinding, type ListQuery, type Page, type Tx } from '../kernel/index.js';
import { rememberChatCustomer, type PlatformCustomer } from './chat-customers.js';
import type { ChatAttachment, ChatMessage } from './chat-shapes.js';
import { getConversation, lockConversationWith, movedByNewMessage } from './conversations.js';

/** What the platform says of one message, in either direction. */
export interface PlatformMessage {
  platformMessageId: string;
  text: string | null;
  attachments: ChatAttachment[];
  /** The platform's time of the message. */
  sentAt: Date;
}

interface MessageRow {
  id: string;
  conversationId: string;
  pageId: string;
  direction: 'in' | 'out';
  text: string | null;
  attachments: ChatAttachment[];
  senderName: string | null;
  sentByIntegration: boolean;
  chatCustomerId: string;
  sentAt: string;
}

const MESSAGE_SOURCE = (tx: Tx) => tx`chat_messages m join chat_conversations c on c.id = m.conversation_id`;
const MESSAGE_COLUMNS = (tx: Tx) => tx`
  m.id, m.conversation_id, m.page_id, m.direction, m.text, m.attachments, m.sender_name, m.sent_by_integration,
  c.chat_customer_id, api_time(m.sent_at) as sent_at`;

function present(row: MessageRow): ChatMessage {
  const { senderName, sentByIntegration, chatCustomerId, ...message } = row;
  return {
    ...message,
    sender:
      row.direction === 'in'
        ? { type: 'customer', chatCustomerId, name: senderName }
        : { type: 'page', name: senderName, isIntegration: sentByIntegration },
  };
}

/** One message of the shop by id, as the conversation's message list shows it; undefined when there is none. */
export async function getMessage(tx: Tx, id: string): Promise<ChatMessage | undefined> {
  const [row] = await tx<MessageRow[]>`select ${MESSAGE_COLUMNS(tx)} from ${MESSAGE_SOURCE(tx)} where m.id = ${id}`;
  return row && present(row);
}

/** Whether the page holds a message of this platform id. */
export async function holdsPlatformMessage(tx: Tx, pageId: string, platformMessageId: string): Promise<boolean> {
  const [held] = await tx`select 1 from chat_messages where page_id = ${pageId} and platform_message_id = ${platformMessageId}`;
  return held !== undefined;
}

async function messageByPlatformId(tx: Tx, pageId: string, platformMessageId: string): Promise<ChatMessage> {
  const [row] = await tx<MessageRow[]>`
    select ${MESSAGE_COLUMNS(tx)} from ${MESSAGE_SOURCE(tx)}
    where m.page_id = ${pageId} and m.platform_message_id = ${platformMessageId}`;
  return present(row!);
}

/**
 * Stores one message unless the page already has its platform id, and on first recording moves the
 * conversation and writes `message.received` (in) or `message.sent` (out) in the same transaction.
 */
async function recordMessage(
  tx: Tx,
  shopId: string,
  target: { pageId: string; conversationId: string },
  message: PlatformMessage & { direction: 'in' | 'out'; senderName: string | null; sentByIntegration: boolean },
): Promise<{ message: ChatMessage; created: boolean }> {
  const recorded = tx<{ id: string }[]>`
    with inserted as (
      insert into chat_messages (shop_id, page_id, conversation_id, direction, text, attachments, sender_name, sent_by_integration, platform_message_id, sent_at)
      values (${shopId}, ${target.pageId}, ${target.conversationId}, ${message.direction}, ${message.text}, ${tx.json(message.attachments)},
              ${message.senderName}, ${message.sentByIntegration}, ${message.platformMessageId}, ${message.sentAt})
      on conflict (page_id, platform_message_id) do nothing
      returning id
    ), moved as (${movedByNewMessage(tx, target.conversationId, message, tx`exists (select from inserted)`)})
    select id from inserted`;
  // Sent together: the read runs after the insert, so it finds the message, new or not.
  const [inserted, stored] = await allAnswered([recorded.execute(), messageByPlatformId(tx, target.pageId, message.platformMessageId)]);
  const created = inserted.length > 0;
  if (created)
    await writeEvent(tx, {
      shopId,
      type: message.direction === 'in' ? 'message.received' : 'message.sent',
      resourceId: stored.id,
      data: stored,
    });
  return { message: stored, created };
}

/**
 * A message of the inbound webhook: a customer's (`message.received`), or the echo of the page's own
 * send (`message.sent`, by the page, not the integration: a send through the API is recorded under the
 * same platform id first, so its echo adds nothing). The chat customer and conversation are created on
 * first sight. Idempotent by platform message id: a webhook the platform retries stores one message
 * and emits one event.
 */
export async function recordWebhookMessage(
  tx: Tx,
  shopId: string,
  input: PlatformMessage & { pageId: string; customer: PlatformCustomer; direction: 'in' | 'out' },
): Promise<{ message: ChatMessage; created: boolean }> {
  const customer = await rememberChatCustomer(tx, shopId, input.pageId, input.customer);
  const conversationId = await lockConversationWith(tx, shopId, input.pageId, customer.id);
  return recordMessage(
    tx,
    shopId,
    { pageId: input.pageId, conversationId },
    { ...input, senderName: input.direction === 'in' ? customer.name : null, sentByIntegration: false },
  );
}

/**
 * A message the platform accepted from the page through the API, in a conversation the caller found
 * (and locked) on the key's pages: stored with `message.sent`.
 */
export async function recordPageMessage(
  tx: Tx,
  shopId: string,
  input: PlatformMessage & { pageId: string; conversationId: string; senderName: string | null; sentByIntegration: boolean },
): Promise<ChatMessage> {
  const { message } = await recordMessage(tx, shopId, input, { ...input, direction: 'out' });
  return message;
}

/** `GET /conversations/{id}/messages`: newest first, with a cursor (no `updatedSince`). 404 outside `pageIds`. */
export async function listMessages(
  tx: Tx,
  conversationId: string,
  query: Pick<ListQuery, 'limit' | 'cursor'>,
  pageIds: readonly string[],
  binding: CursorBinding,
): Promise<Page<ChatMessage>> {
  const conversation = await getConversation(tx, conversationId, pageIds);
  const page = await syncedPage<MessageRow>(
    tx,
    {
      table: 'm',
      column: 'sent_at',
      softDelete: false,
      newestFirst: true,
      source: MESSAGE_SOURCE(tx),
      columns: MESSAGE_COLUMNS(tx),
      filters: () => [tx`m.conversation_id = ${conversation.id}`],
    },
    { query, binding, ceilingSeconds: 0 },
  );
  return { data: page.data.map(present), nextCursor: page.nextCursor };
}
