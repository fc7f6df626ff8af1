import {
  isUuid,
  pipelined,
  Problem,
  syncedPage,
  type CursorBinding,
  type Fragment,
  type ListQuery,
  type Page,
  type Tx,
} from '../kernel/index.js';
import type { ChatAttachment, ChatConversation } from './chat-shapes.js';

/** Messenger's standard messaging window: a page may answer for 24 hours after the customer's last message. */
export const MESSAGING_WINDOW_HOURS = 24;
const SNIPPET_LENGTH = 200;

const CONVERSATION_SOURCE = (tx: Tx) => tx`
  chat_conversations c
  join chat_customers k on k.id = c.chat_customer_id
  left join chat_page_links l on l.page_id = c.page_id`;

/** The wire shape (chat-shapes.ts): `canReply` while the page is connected and the window is open. */
const CONVERSATION_COLUMNS = (tx: Tx) => tx`
  c.id, c.page_id,
  json_build_object('id', k.id, 'name', k.name, 'phone', k.phone, 'customerId', k.customer_id) as customer,
  api_time(c.last_message_at) as last_message_at, c.snippet,
  coalesce(l.connected and ${replyWindowEnd(tx)} > now(), false) as can_reply,
  api_time(${replyWindowEnd(tx)}) as reply_window_ends_at,
  api_time(c.created_at) as created_at`;

function replyWindowEnd(tx: Tx): Fragment {
  return tx`(c.last_customer_message_at + make_interval(hours => ${MESSAGING_WINDOW_HOURS}))`;
}

/**
 * `GET /conversations`: the conversations of the pages in `pageIds` (the key's), newest last message
 * first; `pageId` narrows to one page, `updatedSince` filters on `lastMessageAt`.
 */
export async function listConversations(
  tx: Tx,
  query: ListQuery & { pageId?: string },
  pageIds: readonly string[],
  binding: CursorBinding,
  ceilingSeconds: number,
): Promise<Page<ChatConversation>> {
  return syncedPage<ChatConversation>(
    tx,
    {
      table: 'c',
      column: 'last_message_at',
      softDelete: false,
      newestFirst: true,
      source: CONVERSATION_SOURCE(tx),
      columns: CONVERSATION_COLUMNS(tx),
      filters: () => [
        tx`c.page_id = any(${pageIds as string[]}::uuid[])`,
        // A value that is no page id names no page of the key's: an empty list, as for another shop's page.
        ...(query.pageId === undefined ? [] : [isUuid(query.pageId) ? tx`c.page_id = ${query.pageId}::uuid` : tx`false`]),
      ],
    },
    { query, binding, ceilingSeconds },
  );
}

/** One conversation of the pages in `pageIds`; 404 for any other (another shop's, another page's). */
export async function getConversation(tx: Tx, id: string, pageIds: readonly string[]): Promise<ChatConversation> {
  const [conversation] = isUuid(id)
    ? await tx<ChatConversation[]>`
        select ${CONVERSATION_COLUMNS(tx)} from ${CONVERSATION_SOURCE(tx)}
        where c.id = ${id} and c.page_id = any(${pageIds as string[]}::uuid[])`
    : [];
  if (!conversation) throw new Problem('not-found', `no conversation ${id}`);
  return conversation;
}

/** The conversation of a page with a chat customer, created on the first message; locked until the transaction ends. */
export async function lockConversationWith(tx: Tx, shopId: string, pageId: string, chatCustomerId: string): Promise<string> {
  // Sent together: the lock's read runs after the insert, so it finds the conversation either way.
  return pipelined(
    tx`
      insert into chat_conversations (shop_id, page_id, chat_customer_id) values (${shopId}, ${pageId}, ${chatCustomerId})
      on conflict (chat_customer_id) do nothing`,
    async () =>
      (await tx<{ id: string }[]>`select id from chat_conversations where chat_customer_id = ${chatCustomerId} for update`)[0]!.id,
  );
}

/**
 * What a new message does to its conversation, as an update to send inside the statement that
 * records the message (`when` tells it the message is new): the conversation moves to the top
 * (`lastMessageAt` is when Shopflow recorded it, so `updatedSince` passes never miss a late webhook);
 * the snippet follows the newest message by platform time; a customer's message restarts the
 * messaging window from its platform time.
 */
export function movedByNewMessage(
  tx: Tx,
  conversationId: string,
  message: { direction: 'in' | 'out'; text: string | null; attachments: ChatAttachment[]; sentAt: Date },
  when: Fragment,
): Fragment {
  const snippet = snippetOf(message);
  return tx`
    update chat_conversations set
      last_message_at = clock_timestamp(),
      snippet = case when snippet_sent_at is null or snippet_sent_at <= ${message.sentAt} then ${snippet} else snippet end,
      snippet_sent_at = greatest(snippet_sent_at, ${message.sentAt}),
      last_customer_message_at = case when ${message.direction} = 'in'
        then greatest(last_customer_message_at, ${message.sentAt}) else last_customer_message_at end
    where id = ${conversationId} and ${when}`;
}

/** The start of the text, or what was attached (`[image]`), as chat lists show it. */
function snippetOf(message: { text: string | null; attachments: ChatAttachment[] }): string {
  if (message.text) return message.text.slice(0, SNIPPET_LENGTH);
  return message.attachments.map((attachment) => `[${attachment.type}]`).join(' ');
}
