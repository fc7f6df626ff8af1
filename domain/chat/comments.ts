import { isUuid, Problem, syncedPage, type CursorBinding, type ListQuery, type Page, type Tx } from '../kernel/index.js';
import { rememberChatCustomer, type PlatformCustomer } from './chat-customers.js';
import type { ChatComment } from './chat-shapes.js';

/** The platform allows one private reply to a comment, within 7 days of it. */
export const PRIVATE_REPLY_WINDOW_DAYS = 7;

/** A feed change of one comment, as the inbound webhook reports it (verbs as on the platform). */
export interface CommentChange {
  verb: 'add' | 'edited' | 'remove' | 'hide' | 'unhide';
  platformCommentId: string;
  postId: string;
  parentId: string | null;
  author: PlatformCustomer;
  text: string | null;
  /** The platform's time of the comment itself. */
  createdAt: Date;
  /** The platform's time of this change (whole seconds, as feed entries give it). */
  changedAt: Date;
}

const COMMENT_COLUMNS = (tx: Tx) => tx`
  id, page_id, platform_post_id as post_id, platform_parent_id as parent_id,
  json_build_object('chatCustomerId', chat_customer_id, 'name', author_name) as author,
  text, hidden as is_hidden,
  (privately_replied_at is null and removed_at is null
    and created_at + make_interval(days => ${PRIVATE_REPLY_WINDOW_DAYS}) > now()) as can_reply_privately,
  api_time(privately_replied_at) as privately_replied_at, api_time(created_at) as created_at,
  api_time(updated_at) as updated_at, api_time(removed_at) as removed_at`;

/**
 * Applies one feed change to the stored comment, creating it whatever the verb: the platform delivers
 * each event on its own, so an edit, hide or removal may arrive before the comment's `add`. An `add`
 * never overwrites the text an earlier-arrived edit stored; a repeated change changes nothing; and
 * text older (by the platform's time) than the stored text's is ignored, so a late or replayed
 * webhook never brings back older text.
 */
export async function recordCommentChange(tx: Tx, shopId: string, pageId: string, change: CommentChange): Promise<ChatComment> {
  const { id: chatCustomerId } = await rememberChatCustomer(tx, shopId, pageId, change.author);
  const removed = change.verb === 'remove';
  const hidden = change.verb === 'hide' ? true : change.verb === 'unhide' ? false : null;
  // Only an edit replaces text; any change carrying text fills a comment known without it. Changes
  // within one of the platform's whole seconds cannot be ordered: the later arrival wins.
  const textApplies = tx`(excluded.text is not null
    and (chat_comments.text_changed_at is null or chat_comments.text_changed_at <= ${change.changedAt})
    and (${change.verb} = 'edited' or chat_comments.text is null))`;
  const [row] = await tx<{ id: string }[]>`
    insert into chat_comments (shop_id, page_id, platform_comment_id, platform_post_id, platform_parent_id, chat_customer_id,
                               author_name, text, text_changed_at, hidden, hidden_changed_at, removed_at, created_at)
    values (${shopId}, ${pageId}, ${change.platformCommentId}, ${change.postId}, ${change.parentId}, ${chatCustomerId},
            ${change.author.name ?? null}, ${change.text}, ${change.text === null ? null : change.changedAt},
            ${hidden ?? false}, ${hidden === null ? null : change.changedAt}, ${removed ? tx`clock_timestamp()` : null}, ${change.createdAt})
    on conflict (page_id, platform_comment_id) do update set
      text = case when ${textApplies} then excluded.text else chat_comments.text end,
      text_changed_at = case when ${textApplies} then excluded.text_changed_at else chat_comments.text_changed_at end,
      -- A hide/unhide older than the last visibility change (a late delivery, or the feed's report of
      -- Shopflow's own hide/show within the same second) changes nothing.
      hidden = case when ${hidden}::boolean is not null
          and (chat_comments.hidden_changed_at is null or chat_comments.hidden_changed_at < ${change.changedAt})
        then ${hidden}::boolean else chat_comments.hidden end,
      hidden_changed_at = case when ${hidden}::boolean is null then chat_comments.hidden_changed_at
        else greatest(chat_comments.hidden_changed_at, ${change.changedAt}) end,
      removed_at = coalesce(chat_comments.removed_at, excluded.removed_at),
      author_name = coalesce(excluded.author_name, chat_comments.author_name),
      updated_at = clock_timestamp()
    returning id`;
  return getComment(tx, row!.id, [pageId]);
}

/** One comment of the pages in `pageIds`; 404 for any other. */
export async function getComment(tx: Tx, id: string, pageIds: readonly string[]): Promise<ChatComment> {
  const [comment] = isUuid(id)
    ? await tx<
        ChatComment[]
      >`select ${COMMENT_COLUMNS(tx)} from chat_comments where id = ${id} and page_id = any(${pageIds as string[]}::uuid[])`
    : [];
  if (!comment) throw new Problem('not-found', `no comment ${id}`);
  return comment;
}

/** The private reply the platform accepted: no second one (the platform would refuse it). */
export async function markPrivatelyReplied(tx: Tx, commentId: string, at: Date): Promise<void> {
  await tx`update chat_comments set privately_replied_at = coalesce(privately_replied_at, ${at}), updated_at = clock_timestamp() where id = ${commentId}`;
}

/**
 * `GET /comments`: the comments of the pages in `pageIds`, the latest change first (a new comment,
 * an edit, a hide, a removal), so a moderation pass reads what moved; `updatedSince` filters on
 * `updatedAt`; `pageId` and `postId` narrow the list.
 */
export async function listComments(
  tx: Tx,
  query: ListQuery & { pageId?: string; postId?: string },
  pageIds: readonly string[],
  binding: CursorBinding,
  ceilingSeconds: number,
): Promise<Page<ChatComment>> {
  return syncedPage<ChatComment>(
    tx,
    {
      table: 'chat_comments',
      column: 'updated_at',
      softDelete: false,
      newestFirst: true,
      source: tx`chat_comments`,
      columns: COMMENT_COLUMNS(tx),
      filters: () => [
        tx`page_id = any(${pageIds as string[]}::uuid[])`,
        // As for conversations: a value that is no page id names no page of the key's, so the list is empty.
        ...(query.pageId === undefined ? [] : [isUuid(query.pageId) ? tx`page_id = ${query.pageId}::uuid` : tx`false`]),
        ...(query.postId === undefined ? [] : [tx`platform_post_id = ${query.postId}`]),
      ],
    },
    { query, binding, ceilingSeconds },
  );
}
