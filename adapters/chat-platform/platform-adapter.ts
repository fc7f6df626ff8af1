import { request, type Dispatcher } from 'undici';
import type { OutgoingContent } from '../../domain/chat/index.js';
import { describeOutboundError, readBounded } from '../outbound/outbound-http.js';
import { ChatPlatformError, classifyGraphError, type GraphErrorBody } from './platform-errors.js';

/**
 * The chat platform as Shopflow calls it: the Messenger Platform's Graph API (the simulator in
 * simulators/chat/ speaks the same), with the page access token as a Bearer header. Switching to the
 * real platform is `baseUrl` and the tokens. Every call is bounded by `timeoutMs`; every failure is
 * a ChatPlatformError whose `kind` callers branch on (platform-errors.ts).
 */
export interface ChatPlatformSettings {
  /** The Graph API root, without the version: `https://graph.facebook.com`, or the simulator's URL. */
  baseUrl: string;
  graphVersion?: string;
  /** The whole call: connect, answer and body. */
  timeoutMs?: number;
  /** The outbound policy's dispatcher (adapters/outbound/outbound-http.ts): connect-time address checks, no redirects. */
  dispatcher: Dispatcher;
}

export const DEFAULT_GRAPH_VERSION = 'v21.0';
/** The Messenger Platform's Graph API root, where a send goes when no other platform URL is set. */
export const REAL_CHAT_PLATFORM_URL = 'https://graph.facebook.com';
export const DEFAULT_PLATFORM_TIMEOUT_MS = 10_000;
/** Answers are small; anything bigger is not read. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface SentMessage {
  platformMessageId: string;
  recipientId: string;
}

/** The page a page access token speaks for, as the platform names it. */
export interface TokenPage {
  id: string;
  name: string | null;
}

export interface CustomerProfile {
  name: string | null;
  phone: string | null;
}

export interface ChatPlatformAdapter {
  /**
   * A message to a customer of the page inside the 24-hour window, or, with `humanAgent`, a person's
   * answer within 7 days (the `HUMAN_AGENT` tag).
   */
  sendMessage(pageToken: string, recipientId: string, content: OutgoingContent, options?: { humanAgent?: boolean }): Promise<SentMessage>;
  /** The one private reply the platform allows to a comment, text only, within 7 days of it. */
  replyPrivately(pageToken: string, commentId: string, text: string): Promise<SentMessage>;
  setCommentHidden(pageToken: string, commentId: string, hidden: boolean): Promise<void>;
  /** The customer's profile as the page sees it (`phone` only where the platform gives one, as Zalo OA does). */
  customerProfile(pageToken: string, customerId: string): Promise<CustomerProfile>;
  /** Whose token this is (`GET /me`): a page token names its page; any other token names something else or is refused (190). */
  tokenPage(pageToken: string): Promise<TokenPage>;
}

export function createChatPlatformAdapter(settings: ChatPlatformSettings): ChatPlatformAdapter {
  const version = settings.graphVersion ?? DEFAULT_GRAPH_VERSION;
  const timeoutMs = settings.timeoutMs ?? DEFAULT_PLATFORM_TIMEOUT_MS;
  const root = settings.baseUrl.replace(/\/+$/, '');

  async function graph<T>(
    method: 'GET' | 'POST',
    path: string,
    pageToken: string,
    body?: object,
    query?: Record<string, string>,
  ): Promise<T> {
    const url = new URL(`${root}/${version}/${path.split('/').map(encodeURIComponent).join('/')}`);
    for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
    let answer: { status: number; text: string };
    try {
      const response = await request(url, {
        method,
        headers: { authorization: `Bearer ${pageToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
        dispatcher: settings.dispatcher,
      });
      answer = { status: response.statusCode, text: (await readBounded(response.body, MAX_ANSWER_BYTES)).toString('utf8') };
    } catch (error) {
      // No answer: the request may have reached the platform (a send may be done).
      throw new ChatPlatformError('unavailable', `no answer from the chat platform: ${describeOutboundError(error)}`, {
        outcomeUnknown: true,
      });
    }
    const parsed = parseJson(answer.text);
    if (answer.status >= 200 && answer.status < 300 && parsed !== undefined) return parsed as T;
    const error = (parsed as { error?: GraphErrorBody } | undefined)?.error;
    throw new ChatPlatformError(
      classifyGraphError(answer.status, error),
      error?.message ?? `HTTP ${answer.status} from the chat platform`,
      {
        httpStatus: answer.status,
        code: error?.code,
        subcode: error?.error_subcode,
      },
    );
  }

  const sent = (answer: { recipient_id: string; message_id: string }): SentMessage => ({
    platformMessageId: answer.message_id,
    recipientId: answer.recipient_id,
  });

  return {
    async sendMessage(pageToken, recipientId, content, options = {}) {
      const message =
        'text' in content
          ? { text: content.text }
          : { attachment: { type: content.attachment.type, payload: { url: content.attachment.url, is_reusable: true } } };
      const type = options.humanAgent ? { messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT' } : { messaging_type: 'RESPONSE' };
      return sent(await graph('POST', 'me/messages', pageToken, { recipient: { id: recipientId }, ...type, message }));
    },
    async replyPrivately(pageToken, commentId, text) {
      return sent(await graph('POST', 'me/messages', pageToken, { recipient: { comment_id: commentId }, message: { text } }));
    },
    async setCommentHidden(pageToken, commentId, hidden) {
      await graph('POST', commentId, pageToken, { is_hidden: hidden });
    },
    async customerProfile(pageToken, customerId) {
      // Messenger gives a name; a phone only where the platform has one (Zalo OA-style), taken when present.
      const profile = await graph<{ name?: string; phone?: string }>('GET', customerId, pageToken, undefined, { fields: 'name' });
      return { name: profile.name ?? null, phone: profile.phone ?? null };
    },
    async tokenPage(pageToken) {
      const me = await graph<{ id?: unknown; name?: unknown }>('GET', 'me', pageToken, undefined, { fields: 'id,name' });
      if (typeof me.id !== 'string') throw new ChatPlatformError('unavailable', 'the chat platform named no page for the token');
      return { id: me.id, name: typeof me.name === 'string' ? me.name : null };
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
