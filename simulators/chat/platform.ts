import { randomInt } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { SimulatorClock } from './clock.js';
import { FaultPlan } from './faults.js';
import { ControlError, graphErrors } from './graph-errors.js';
import { sendMessage, type SendRequest } from './send-api.js';
import { ChatStore, type App, type Attachment, type Comment, type Customer, type Message, type Page, type WebhookField } from './store.js';
import { commentChangeEvent, customerMessageEvent, pageMessageEchoEvent, type CommentVerb } from './webhook-events.js';
import { WebhookSender, type WebhookDelivery } from './webhooks.js';

export interface ChatPlatformOptions {
  /** The default app's secret, which signs its webhooks. */
  appSecret?: string;
  /** The default app's callback URL, set as if configured in the app dashboard (no verification). */
  callbackUrl?: string;
  /** Messages a minute a new page may send (all its tokens together). */
  sendCapPerMinute?: number;
  /** Waits between webhook attempts (default 1 s, 10 s, 60 s: four attempts). */
  webhookRetryDelaysMs?: number[];
  webhookTimeoutMs?: number;
  /** For HTTPS callbacks and subscription checks behind a private CA. */
  callbackDispatcher?: Dispatcher;
}

export const DEFAULT_APP_SECRET = 'chat-simulator-app-secret';
const DEFAULT_SEND_CAP_PER_MINUTE = 100;

/**
 * The chat platform's state and rules, shared by the Graph routes (what an adapter calls) and the
 * controls (what a customer or a test does). Every method reads time from `clock`.
 */
export class ChatPlatform {
  readonly clock = new SimulatorClock();
  readonly store = new ChatStore();
  readonly faults = new FaultPlan();
  readonly webhooks: WebhookSender;
  readonly defaultApp: App;
  private readonly sendCapPerMinute: number;
  private readonly callbackDispatcher?: Dispatcher;

  constructor(options: ChatPlatformOptions = {}) {
    this.sendCapPerMinute = options.sendCapPerMinute ?? DEFAULT_SEND_CAP_PER_MINUTE;
    this.callbackDispatcher = options.callbackDispatcher;
    this.webhooks = new WebhookSender(
      {
        retryDelaysMs: options.webhookRetryDelaysMs ?? [1_000, 10_000, 60_000],
        attemptTimeoutMs: options.webhookTimeoutMs ?? 10_000,
        dispatcher: options.callbackDispatcher,
      },
      this.clock,
    );
    this.defaultApp = this.createApp({ secret: options.appSecret ?? DEFAULT_APP_SECRET, callbackUrl: options.callbackUrl });
  }

  // Set-up

  createApp(settings: { secret?: string; callbackUrl?: string; verifyToken?: string; fields?: WebhookField[] } = {}): App {
    const app = this.store.addApp(settings.secret ?? `secret-${randomInt(1e9)}`);
    app.callbackUrl = settings.callbackUrl;
    app.verifyToken = settings.verifyToken;
    if (settings.fields) app.fields = new Set(settings.fields);
    return app;
  }

  /** A page connected to an app, with its first page access token; `id` chooses its id (a seed's, stable across runs). */
  createPage(settings: { name: string; id?: string; appId?: string; sendCapPerMinute?: number }): { page: Page; accessToken: string } {
    const app = this.store.app(settings.appId ?? this.defaultApp.id);
    const page = this.store.addPage(app.id, settings.name, settings.sendCapPerMinute ?? this.sendCapPerMinute, settings.id);
    return { page, accessToken: this.store.issueToken(page.id).token };
  }

  /**
   * Another token of the same page (another integration, another key): it shares the page's cap.
   * With `expiresAt`, a short-lived token, refused from then on.
   */
  issuePageToken(pageId: string, options: { expiresAt?: Date } = {}): string {
    const page = this.store.page(pageId);
    if (!page.connected) throw new ControlError(409, `page ${pageId} is disconnected: reconnect it`);
    return this.store.issueToken(page.id, options.expiresAt).token;
  }

  setSendCap(pageId: string, sendCapPerMinute: number): Page {
    const page = this.store.page(pageId);
    page.sendCapPerMinute = sendCapPerMinute;
    return page;
  }

  /** The page removed the app: its tokens are refused from now on (190), and stay refused. */
  disconnectPage(pageId: string): Page {
    const page = this.store.page(pageId);
    page.connected = false;
    for (const token of this.store.tokensOf(page.id)) token.revoked = true;
    return page;
  }

  /** The page connected the app again, which gives a new token. */
  reconnectPage(pageId: string): { page: Page; accessToken: string } {
    const page = this.store.page(pageId);
    page.connected = true;
    return { page, accessToken: this.store.issueToken(page.id).token };
  }

  createCustomer(pageId: string, profile: { name: string; phone?: string; psid?: string }): Customer {
    const { psid, ...rest } = profile;
    return this.store.addCustomer(this.store.page(pageId).id, rest, psid);
  }

  /** An unavailable customer (blocked the page, left Messenger) cannot be sent to (551). */
  setCustomerAvailable(psid: string, available: boolean): Customer {
    const customer = this.store.customer(psid);
    customer.available = available;
    return customer;
  }

  createPost(pageId: string, post: { message: string; at?: Date }) {
    return this.store.addPost(this.store.page(pageId).id, post.message, post.at ?? this.clock.now());
  }

  // What customers do

  /**
   * A customer writes to the page: the message is stored, the 24-hour window runs again from its
   * time, and the app's callback gets a signed `messages` event. `at` backdates the message;
   * `webhook: false` keeps it from the app (history it already has, replayed into a fresh simulator).
   */
  customerWrites(psid: string, content: { text?: string; attachments?: Attachment[]; at?: Date; webhook?: boolean }) {
    const customer = this.store.customer(psid);
    const at = content.at ?? this.clock.now();
    const conversation = this.store.conversationWith(customer, at);
    const message = this.store.addMessage(conversation, {
      direction: 'from-customer',
      text: content.text,
      attachments: content.attachments ?? [],
      createdAt: at,
    });
    if (!conversation.lastCustomerMessageAt || at > conversation.lastCustomerMessageAt) conversation.lastCustomerMessageAt = at;
    const app = this.appOf(customer.pageId);
    const webhook =
      content.webhook !== false && app.fields.has('messages')
        ? this.webhooks.send(app, `message from ${psid}`, customerMessageEvent(message))
        : undefined;
    return { message, conversation, webhook };
  }

  customerComments(postId: string, comment: { psid: string; message: string; parentId?: string; at?: Date }) {
    const post = this.store.post(postId);
    const customer = this.store.customer(comment.psid);
    if (customer.pageId !== post.pageId)
      throw new ControlError(409, `customer ${customer.psid} belongs to another page than post ${postId}`);
    if (comment.parentId !== undefined && this.store.comment(comment.parentId).postId !== post.id) {
      throw new ControlError(409, `comment ${comment.parentId} is not on post ${postId}`);
    }
    const stored = this.store.addComment(post, customer, {
      message: comment.message,
      parentId: comment.parentId,
      createdAt: comment.at ?? this.clock.now(),
    });
    return { comment: stored, webhook: this.announceComment(stored, 'add') };
  }

  customerEditsComment(commentId: string, message: string) {
    const comment = this.liveComment(commentId);
    comment.message = message;
    return { comment, webhook: this.announceComment(comment, 'edited') };
  }

  customerRemovesComment(commentId: string) {
    const comment = this.liveComment(commentId);
    comment.removed = true;
    return { comment, webhook: this.announceComment(comment, 'remove') };
  }

  // What the page does through the Graph API

  /** The page a token speaks for; refuses unknown tokens, expired ones and those of a disconnected page (190). */
  pageForToken(token: string | undefined): Page {
    if (!token) throw graphErrors.missingToken();
    const known = this.store.tokens.get(token);
    if (!known) throw graphErrors.invalidToken();
    const page = this.store.page(known.pageId);
    if (known.revoked || !page.connected) throw graphErrors.pageDisconnected();
    const now = this.clock.now();
    if (known.expiresAt && known.expiresAt <= now) throw graphErrors.tokenExpired(known.expiresAt, now);
    return page;
  }

  /** The page `me` names in `GET /me`: a page token's page; no token, or an app's (which names no one), is 2500. */
  pageForMe(token: string | undefined): Page {
    const [appId = '', secret] = (token ?? '').split('|');
    const appToken = secret !== undefined && this.store.apps.get(appId)?.secret === secret;
    if (!token || appToken) throw graphErrors.activeTokenRequired();
    return this.pageForToken(token);
  }

  sendMessage(page: Page, sendRequest: SendRequest): Message {
    const message = sendMessage(this.store, page, sendRequest, this.clock.now());
    const app = this.appOf(page.id);
    if (app.fields.has('message_echoes')) this.webhooks.send(app, `echo to ${message.psid}`, pageMessageEchoEvent(message, app.id));
    return message;
  }

  /** Hide or show a comment on the page; the feed webhook reports it (`hide` / `unhide`). */
  setCommentHidden(page: Page, commentId: string, hidden: boolean): Comment {
    const comment = this.store.comments.get(commentId);
    if (!comment || comment.pageId !== page.id || comment.removed) throw graphErrors.noSuchObject(commentId, 'post');
    if (comment.hidden !== hidden) {
      comment.hidden = hidden;
      this.announceComment(comment, hidden ? 'hide' : 'unhide');
    }
    return comment;
  }

  /**
   * `POST /{app-id}/subscriptions`: the platform first calls the callback with `hub.mode=subscribe`,
   * `hub.verify_token` and `hub.challenge`, and subscribes only if the answer is the challenge.
   */
  async subscribeApp(app: App, subscription: { callbackUrl: string; verifyToken: string; fields: WebhookField[] }): Promise<void> {
    const challenge = String(randomInt(1e9));
    const url = new URL(subscription.callbackUrl);
    url.searchParams.set('hub.mode', 'subscribe');
    url.searchParams.set('hub.verify_token', subscription.verifyToken);
    url.searchParams.set('hub.challenge', challenge);
    let answer: { status: number; body: string };
    try {
      const response = await request(url, {
        method: 'GET',
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
        ...(this.callbackDispatcher ? { dispatcher: this.callbackDispatcher } : {}),
      });
      answer = { status: response.statusCode, body: await response.body.text() };
    } catch (error) {
      throw graphErrors.callbackVerificationFailed(`could not reach ${subscription.callbackUrl}: ${(error as Error).message}`);
    }
    if (answer.status !== 200 || answer.body.trim() !== challenge) {
      throw graphErrors.callbackVerificationFailed(`the callback answered HTTP ${answer.status} without the challenge`);
    }
    app.callbackUrl = subscription.callbackUrl;
    app.verifyToken = subscription.verifyToken;
    app.fields = new Set(subscription.fields);
  }

  // What was done

  /** What pages sent, oldest first (optionally one page's). */
  sentMessages(pageId?: string): Message[] {
    return this.store.messages.filter(
      (message) => message.direction === 'from-page' && (pageId === undefined || message.pageId === pageId),
    );
  }

  webhookDeliveries(): WebhookDelivery[] {
    return this.webhooks.deliveries();
  }

  async close(): Promise<void> {
    await this.webhooks.close();
  }

  private appOf(pageId: string): App {
    return this.store.app(this.store.page(pageId).appId);
  }

  private liveComment(commentId: string): Comment {
    const comment = this.store.comment(commentId);
    if (comment.removed) throw new ControlError(409, `comment ${commentId} was removed`);
    return comment;
  }

  private announceComment(comment: Comment, verb: CommentVerb): WebhookDelivery | undefined {
    const app = this.appOf(comment.pageId);
    if (!app.fields.has('feed')) return undefined;
    return this.webhooks.send(
      app,
      `comment ${verb} ${comment.id}`,
      commentChangeEvent(comment, this.store.customer(comment.psid), verb, this.clock.now()),
    );
  }
}
