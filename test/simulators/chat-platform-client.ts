import { request } from 'undici';
import { expect } from 'vitest';
import type { RunningChatPlatform } from '../../simulators/chat/index.js';

export interface Answer<T> {
  status: number;
  body: T;
}

export interface GraphErrorBody {
  error: { message: string; type: string; code: number; error_subcode?: number; is_transient?: boolean; fbtrace_id: string };
}

export interface SendAnswer {
  recipient_id: string;
  message_id: string;
}

export interface ListAnswer<T> {
  data: T[];
  paging?: { cursors: { before: string; after: string }; next?: string };
}

/**
 * Speaks to a running simulator over real HTTP: `graph` as an adapter would (Graph API, version
 * prefix, page token as a Bearer header unless given as `access_token`), `control` as a test does.
 */
export function chatClient(simulator: RunningChatPlatform) {
  async function call<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    options: { token?: string; json?: object; form?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.json) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const response = await request(`${simulator.url}${path}`, { method, headers, body });
    const text = await response.body.text();
    return { status: response.statusCode, body: (text ? JSON.parse(text) : undefined) as T } satisfies Answer<T>;
  }

  return {
    graph: <T = Record<string, unknown>>(
      method: 'GET' | 'POST',
      path: string,
      options?: { token?: string; json?: object; form?: Record<string, string> },
    ) => call<T>(method, `/v21.0${path}`, options),
    control: <T = Record<string, unknown>>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, json?: object) =>
      call<T>(method, `/_control${path}`, json ? { json } : {}),
    /** A Send API call with a text message as a reply (`messaging_type: RESPONSE`). */
    sendText: (token: string, psid: string, text: string, extra: object = {}) =>
      call<SendAnswer & GraphErrorBody>('POST', '/v21.0/me/messages', {
        token,
        json: { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text }, ...extra },
      }),
  };
}

export function expectGraphError(answer: Answer<unknown>, code: number, subcode?: number): void {
  const body = answer.body as GraphErrorBody;
  expect(body.error, JSON.stringify(answer.body)).toMatchObject({ type: expect.any(String), code, fbtrace_id: expect.any(String) });
  if (subcode !== undefined) expect(body.error.error_subcode).toBe(subcode);
}
