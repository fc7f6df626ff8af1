import { randomBytes, randomInt } from 'node:crypto';
import { ControlError } from './graph-errors.js';

/** The webhook fields an app may subscribe to (the Messenger Platform's names). */
export type WebhookField = 'messages' | 'message_echoes' | 'feed';

export interface App {
  id: string;
  secret: string;
  /** Set by a verified subscription (`POST /{app-id}/subscriptions`) or directly by a control. */
  callbackUrl?: string;
  verifyToken?: string;
  fields: Set<WebhookField>;
}

export interface Page {
  id: string;
  name: string;
  appId: string;
  /** False once the page removed the app: every token of the page is then refused (190). */
  connected: boolean;
  /** Messages a minute the page may send, whichever token sends them. */
  sendCapPerMinute: number;
  /** Send times (simulator clock, ms) inside the last minute: the cap's sliding window. */
  recentSendTimes: number[];
}

export interface PageToken {
  token: string;
  pageId: string;
  /** Tokens issued before a disconnection stay refused after a reconnection, as real ones do. */
  revoked: boolean;
  /** A short-lived token is refused from then on (190 / 463); a long-lived one has none. */
  expiresAt?: Date;
}

export interface Customer {
  /** Page-scoped id: the same person has another PSID on another page. */
  psid: string;
  pageId: string;
  name: string;
  phone?: string;
  /** False when the person blocked the page or deactivated their account (551). */
  available: boolean;
}

export interface Attachment {
  type: 'image' | 'video' | 'audio' | 'file';
  url: string;
}

export interface Conversation {
  id: string;
  pageId: string;
  psid: string;
  updatedAt: Date;
  /** The 24-hour messaging window runs from here; unset until the customer writes. */
  lastCustomerMessageAt?: Date;
}

export interface Message {
  mid: string;
  /** Orders messages written in the same millisecond. */
  sequence: number;
  conversationId: string;
  pageId: string;
  psid: string;
  direction: 'from-customer' | 'from-page';
  text?: string;
  attachments: Attachment[];
  createdAt: Date;
  /** A page message sent as the private reply to this comment. */
  privateReplyTo?: string;
}

export interface Post {
  id: string;
  pageId: string;
  message: string;
  createdAt: Date;
}

export interface Comment {
  id: string;
  sequence: number;
  postId: string;
  pageId: string;
  psid: string;
  parentId?: string;
  message: string;
  hidden: boolean;
  removed: boolean;
  createdAt: Date;
  privatelyRepliedAt?: Date;
}

/** Facebook ids are strings of digits. */
function numericId(): string {
  return `${randomInt(1, 10)}${String(randomInt(0, 1e12)).padStart(12, '0')}${String(randomInt(0, 1e3)).padStart(3, '0')}`;
}

/** Everything the platform holds, with lookups that refuse unknown ids (as controls see them). */
export class ChatStore {
  readonly apps = new Map<string, App>();
  readonly pages = new Map<string, Page>();
  readonly tokens = new Map<string, PageToken>();
  readonly customers = new Map<string, Customer>();
  readonly conversations = new Map<string, Conversation>();
  readonly messages: Message[] = [];
  readonly posts = new Map<string, Post>();
  readonly comments = new Map<string, Comment>();
  private sequence = 0;

  nextSequence(): number {
    return ++this.sequence;
  }

  addApp(secret: string): App {
    const app: App = { id: numericId(), secret, fields: new Set(['messages', 'feed']) };
    this.apps.set(app.id, app);
    return app;
  }

  addPage(appId: string, name: string, sendCapPerMinute: number, id = numericId()): Page {
    if (this.pages.has(id)) throw new ControlError(409, `page ${id} exists`);
    const page: Page = { id, name, appId, connected: true, sendCapPerMinute, recentSendTimes: [] };
    this.pages.set(page.id, page);
    return page;
  }

  /** Page access tokens look like the real ones (`EAA…`) so logs and redaction behave alike. */
  issueToken(pageId: string, expiresAt?: Date): PageToken {
    const token: PageToken = { token: `EAA${randomBytes(36).toString('base64url')}`, pageId, revoked: false, expiresAt };
    this.tokens.set(token.token, token);
    return token;
  }

  tokensOf(pageId: string): PageToken[] {
    return [...this.tokens.values()].filter((token) => token.pageId === pageId);
  }

  addCustomer(pageId: string, profile: { name: string; phone?: string }, psid = numericId()): Customer {
    if (this.customers.has(psid)) throw new ControlError(409, `customer ${psid} exists`);
    const customer: Customer = { psid, pageId, ...profile, available: true };
    this.customers.set(customer.psid, customer);
    return customer;
  }

  findConversation(psid: string): Conversation | undefined {
    return [...this.conversations.values()].find((conversation) => conversation.psid === psid);
  }

  /** The one conversation of a (page, customer), made when either side first writes. */
  conversationWith(customer: Customer, at: Date): Conversation {
    const existing = this.findConversation(customer.psid);
    if (existing) return existing;
    const conversation: Conversation = { id: `t_${numericId()}`, pageId: customer.pageId, psid: customer.psid, updatedAt: at };
    this.conversations.set(conversation.id, conversation);
    return conversation;
  }

  addMessage(
    conversation: Conversation,
    fields: Pick<Message, 'direction' | 'text' | 'attachments' | 'createdAt' | 'privateReplyTo'>,
  ): Message {
    const message: Message = {
      mid: `m_${randomBytes(24).toString('base64url')}`,
      sequence: this.nextSequence(),
      conversationId: conversation.id,
      pageId: conversation.pageId,
      psid: conversation.psid,
      ...fields,
    };
    this.messages.push(message);
    if (message.createdAt > conversation.updatedAt) conversation.updatedAt = message.createdAt;
    return message;
  }

  addPost(pageId: string, message: string, createdAt: Date): Post {
    const post: Post = { id: `${pageId}_${numericId()}`, pageId, message, createdAt };
    this.posts.set(post.id, post);
    return post;
  }

  /** Comment ids are `<post object id>_<comment object id>`, as on Facebook. */
  addComment(post: Post, customer: Customer, fields: { message: string; parentId?: string; createdAt: Date }): Comment {
    const postObjectId = post.id.split('_')[1] ?? post.id;
    const comment: Comment = {
      id: `${postObjectId}_${numericId()}`,
      sequence: this.nextSequence(),
      postId: post.id,
      pageId: post.pageId,
      psid: customer.psid,
      hidden: false,
      removed: false,
      ...fields,
    };
    this.comments.set(comment.id, comment);
    return comment;
  }

  app(id: string): App {
    return this.found(this.apps.get(id), 'app', id);
  }

  page(id: string): Page {
    return this.found(this.pages.get(id), 'page', id);
  }

  customer(psid: string): Customer {
    return this.found(this.customers.get(psid), 'customer', psid);
  }

  conversation(id: string): Conversation {
    return this.found(this.conversations.get(id), 'conversation', id);
  }

  post(id: string): Post {
    return this.found(this.posts.get(id), 'post', id);
  }

  comment(id: string): Comment {
    return this.found(this.comments.get(id), 'comment', id);
  }

  private found<T>(value: T | undefined, kind: string, id: string): T {
    if (value === undefined) throw new ControlError(404, `no ${kind} ${id}`);
    return value;
  }
}
