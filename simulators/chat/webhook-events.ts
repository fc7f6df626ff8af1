import type { Comment, Customer, Message } from './store.js';

/** The feed verbs the platform reports for a comment. */
export type CommentVerb = 'add' | 'edited' | 'remove' | 'hide' | 'unhide';

/**
 * Webhook bodies in the Messenger Platform's shapes. Messaging entries count time in milliseconds,
 * feed changes in seconds, as the real platform does.
 */
export function customerMessageEvent(message: Message) {
  return messagingEvent(message, { sender: message.psid, recipient: message.pageId }, { mid: message.mid, ...messageContent(message) });
}

/** `message_echoes`: what the page itself sent, from the page to the customer. */
export function pageMessageEchoEvent(message: Message, appId: string) {
  return messagingEvent(
    message,
    { sender: message.pageId, recipient: message.psid },
    { is_echo: true, app_id: Number(appId), mid: message.mid, ...messageContent(message) },
  );
}

function messagingEvent(message: Message, parties: { sender: string; recipient: string }, content: object) {
  const timestamp = message.createdAt.getTime();
  return {
    object: 'page',
    entry: [
      {
        id: message.pageId,
        time: timestamp,
        messaging: [{ sender: { id: parties.sender }, recipient: { id: parties.recipient }, timestamp, message: content }],
      },
    ],
  };
}

export function commentChangeEvent(comment: Comment, customer: Customer, verb: CommentVerb, at: Date) {
  return {
    object: 'page',
    entry: [
      {
        id: comment.pageId,
        time: unixSeconds(at),
        changes: [
          {
            field: 'feed',
            value: {
              item: 'comment',
              verb,
              comment_id: comment.id,
              post_id: comment.postId,
              // A comment on the post itself has the post as its parent, as on Facebook.
              parent_id: comment.parentId ?? comment.postId,
              from: { id: customer.psid, name: customer.name },
              created_time: unixSeconds(comment.createdAt),
              ...(verb === 'remove' ? {} : { message: comment.message }),
              ...(verb === 'hide' || verb === 'unhide' ? { is_hidden: comment.hidden } : {}),
            },
          },
        ],
      },
    ],
  };
}

function messageContent(message: Message) {
  return {
    ...(message.text === undefined ? {} : { text: message.text }),
    ...(message.attachments.length === 0
      ? {}
      : { attachments: message.attachments.map((attachment) => ({ type: attachment.type, payload: { url: attachment.url } })) }),
  };
}

function unixSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}
