/**
 * Chat: pages' platform links, chat customers, conversations, messages and comments
 * (chat_page_links, chat_customers, chat_conversations, chat_messages, chat_comments), the wire
 * shapes, and the inbound webhook's check and reading. Pages themselves are access's. Other modules
 * import only this file.
 */

export {
  ChatAttachmentSchema,
  ChatCommentSchema,
  ChatConversationSchema,
  ChatCustomerSchema,
  ChatMessageSchema,
  ChatSenderSchema,
  type ChatAttachment,
  type ChatComment,
  type ChatConversation,
  type ChatCustomer,
  type ChatMessage,
  type ChatSender,
} from './chat-shapes.js';
export { type PlatformCustomer } from './chat-customers.js';
export { getComment, listComments, PRIVATE_REPLY_WINDOW_DAYS, recordCommentChange, type CommentChange } from './comments.js';
export { getConversation, listConversations, MESSAGING_WINDOW_HOURS } from './conversations.js';
export { recordInboundWebhook, type ProfileLookup } from './inbound-recording.js';
export {
  hasValidHubSignature,
  parseInboundWebhook,
  type InboundCommentChange,
  type InboundItem,
  type InboundMessage,
} from './inbound-webhook.js';
export { getMessage, listMessages, recordWebhookMessage, type PlatformMessage } from './messages.js';
export {
  linkedPageOf,
  linkPage,
  markPageDisconnected,
  pageLink,
  PageLinkInputSchema,
  unlinkPage,
  type PageLink,
  type PageLinkInput,
  type PageTokenOwner,
} from './page-links.js';
export {
  replyPrivately,
  sendChatMessage,
  setCommentHidden,
  type ChatActor,
  type ChatChannel,
  type OutgoingContent,
  type PlatformPage,
} from './sending.js';
