import type { KeyObject } from 'node:crypto';
import { isUuid, Problem, type Tx } from '../kernel/index.js';
import type { ChatAttachment, ChatComment, ChatMessage } from './chat-shapes.js';
import { getComment, markPrivatelyReplied } from './comments.js';
import { lockConversationWith } from './conversations.js';
import { recordPageMessage } from './messages.js';
import { openedPageLink, pageLink, ENCRYPTED_LINK_COLUMNS, type PageLink, type EncryptedPageLinkRow } from './page-links.js';

/** A page as the platform knows it, with its opened token: what the channel speaks for. */
export interface PlatformPage {
  shopId: string;
  pageId: string;
  accessToken: string;
}

/** What one send carries: text, or one attachment (the platform takes one of them per message). */
export type OutgoingContent = { text: string } | { attachment: ChatAttachment };

/**
 * The chat platform as the chat module needs it (adapters/chat-platform/chat-channel.ts speaks it over
 * HTTP). Every refusal is a Problem of the Open API: `messaging-window-closed`, `page-not-connected`,
 * `conversation-not-replyable`, `channel-unavailable` or `validation-failed`.
 */
export interface ChatChannel {
  sendMessage(page: PlatformPage, recipientId: string, content: OutgoingContent): Promise<{ platformMessageId: string }>;
  replyPrivately(page: PlatformPage, platformCommentId: string, text: string): Promise<{ platformMessageId: string }>;
  setCommentHidden(page: PlatformPage, platformCommentId: string, hidden: boolean): Promise<void>;
}

/** Who acts: the key's shop, pages and application, and the channel with the key that opens page tokens. */
export interface ChatActor {
  shopId: string;
  pageIds: readonly string[];
  applicationName: string;
  channel: ChatChannel;
  secretsKey: KeyObject;
}

/**
 * The page's platform side, or 422 `page-not-connected` when it has none or the platform refused its
 * token already (the link says so until a new token is linked): the platform is not asked again.
 */
function connectedPage(actor: ChatActor, link: PageLink | undefined): PlatformPage {
  if (!link?.connected) throw new Problem('page-not-connected', 'this page is not connected to its chat platform; link it again');
  return { shopId: actor.shopId, pageId: link.pageId, accessToken: link.accessToken };
}

/** `connectedPage` of a page the caller found, read from its link. */
async function readConnectedPage(tx: Tx, actor: ChatActor, pageId: string): Promise<PlatformPage> {
  return connectedPage(actor, await pageLink(tx, pageId, actor.secretsKey));
}

/**
 * `POST /conversations/{id}/messages`: sends through the platform, synchronously, then records the
 * message and writes `message.sent` in the same transaction. The conversation stays locked from the
 * first read to the commit, so the platform's echo of this very message waits and then finds it
 * recorded. A refusal or failure of the platform records nothing.
 */
export async function sendChatMessage(tx: Tx, actor: ChatActor, conversationId: string, content: OutgoingContent): Promise<ChatMessage> {
  // The page's link comes with the lock: one round trip.
  const [target] = isUuid(conversationId)
    ? await tx<({ conversationPageId: string; platformCustomerId: string } & EncryptedPageLinkRow)[]>`
        select c.page_id as conversation_page_id, k.platform_customer_id, ${ENCRYPTED_LINK_COLUMNS(tx)}
        from chat_conversations c join chat_customers k on k.id = c.chat_customer_id
        left join chat_page_links l on l.page_id = c.page_id
        where c.id = ${conversationId} and c.page_id = any(${actor.pageIds as string[]}::uuid[])
        for update of c`
    : [];
  if (!target) throw new Problem('not-found', `no conversation ${conversationId}`);
  const { conversationPageId: pageId, platformCustomerId, ...link } = target;
  const page = connectedPage(actor, openedPageLink(link, actor.secretsKey));
  const sent = await actor.channel.sendMessage(page, platformCustomerId, content);
  return recordPageMessage(tx, actor.shopId, {
    pageId,
    conversationId,
    platformMessageId: sent.platformMessageId,
    text: 'text' in content ? content.text : null,
    attachments: 'attachment' in content ? [content.attachment] : [],
    sentAt: new Date(),
    senderName: actor.applicationName,
    sentByIntegration: true,
  });
}

interface CommentTarget {
  id: string;
  pageId: string;
  platformCommentId: string;
  chatCustomerId: string | null;
  privatelyRepliedAt: Date | null;
  removedAt: Date | null;
}

/** A comment of the key's pages, locked until the transaction ends; 404 for any other. */
async function lockComment(tx: Tx, actor: ChatActor, commentId: string): Promise<CommentTarget> {
  const [comment] = isUuid(commentId)
    ? await tx<CommentTarget[]>`
        select id, page_id, platform_comment_id, chat_customer_id, privately_replied_at, removed_at from chat_comments
        where id = ${commentId} and page_id = any(${actor.pageIds as string[]}::uuid[])
        for update`
    : [];
  if (!comment) throw new Problem('not-found', `no comment ${commentId}`);
  return comment;
}

/**
 * `POST /comments/{id}/private-reply`: the one private message the platform allows to a comment's
 * author. A comment already answered privately, or removed, is refused here (422
 * `conversation-not-replyable`) without asking the platform; the platform judges the 7 days. The
 * reply is recorded in the author's conversation (created if need be) with `message.sent`.
 */
export async function replyPrivately(tx: Tx, actor: ChatActor, commentId: string, text: string): Promise<ChatMessage> {
  const comment = await lockComment(tx, actor, commentId);
  if (comment.privatelyRepliedAt || comment.removedAt || !comment.chatCustomerId) {
    const why = comment.privatelyRepliedAt ? 'already has its private reply' : 'was removed by its author';
    throw new Problem('conversation-not-replyable', `the comment ${why}; the platform allows one private reply to a live comment`);
  }
  const page = await readConnectedPage(tx, actor, comment.pageId);
  const conversationId = await lockConversationWith(tx, actor.shopId, comment.pageId, comment.chatCustomerId);
  const sent = await actor.channel.replyPrivately(page, comment.platformCommentId, text);
  const sentAt = new Date();
  await markPrivatelyReplied(tx, comment.id, sentAt);
  return recordPageMessage(tx, actor.shopId, {
    pageId: comment.pageId,
    conversationId,
    platformMessageId: sent.platformMessageId,
    text,
    attachments: [],
    sentAt,
    senderName: actor.applicationName,
    sentByIntegration: true,
  });
}

/**
 * `POST /comments/{id}/hide` and `/show`: the platform hides or shows the comment, then Shopflow
 * records it (the feed webhook that follows changes nothing more). A removed comment is 409 `conflict`.
 */
export async function setCommentHidden(tx: Tx, actor: ChatActor, commentId: string, hidden: boolean): Promise<ChatComment> {
  const comment = await lockComment(tx, actor, commentId);
  if (comment.removedAt) throw new Problem('conflict', 'the comment was removed by its author; it can no longer be hidden or shown');
  const page = await readConnectedPage(tx, actor, comment.pageId);
  await actor.channel.setCommentHidden(page, comment.platformCommentId, hidden);
  await tx`
    update chat_comments set hidden = ${hidden}, hidden_changed_at = clock_timestamp(), updated_at = clock_timestamp()
    where id = ${comment.id}`;
  return getComment(tx, comment.id, actor.pageIds);
}
