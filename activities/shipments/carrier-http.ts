import { request } from 'undici';
import { CarrierError } from './carrier-adapter.js';

export interface CarrierAnswer {
  status: number;
  body: unknown;
}

/**
 * One JSON call to a carrier, bounded by `timeoutMs` end to end. Whatever keeps the answer from
 * arriving (network, time-out, a dropped connection, a body that is not JSON) is `unavailable`, and
 * so are the answers that say nothing about the order: 429 and 5xx. 401/403 is `unauthorized`: the
 * connection's credentials are refused, so nothing was done and retrying will not help.
 */
export async function callCarrier(
  method: 'GET' | 'POST',
  url: string,
  options: { headers: Record<string, string>; body?: unknown; timeoutMs: number },
): Promise<CarrierAnswer> {
  let status: number;
  let text: string;
  try {
    const response = await request(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    throw new CarrierError('unavailable', `no answer from ${new URL(url).host}: ${(error as Error).message}`, { cause: error });
  }
  if (status === 401 || status === 403)
    throw new CarrierError('unauthorized', `the carrier refuses the connection's credentials (${status}): ${excerpt(text)}`);
  if (status === 429) throw new CarrierError('unavailable', `the carrier is rate limiting the shop (429): ${excerpt(text)}`);
  if (status >= 500) throw new CarrierError('unavailable', `carrier fault (${status}): ${excerpt(text)}`);
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch (error) {
    throw new CarrierError('unavailable', `the carrier answered ${status} with a body that is not JSON: ${excerpt(text)}`, {
      cause: error,
    });
  }
}

/** Reads an answer with the schema of what the carrier documents; anything else is a carrier fault. */
export function readAnswer<T>(
  schema: { safeParse(input: unknown): { success: true; data: T } | { success: false; error: Error } },
  answer: CarrierAnswer,
  what: string,
): T {
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success)
    throw new CarrierError('unavailable', `unexpected ${what} answer (${answer.status}): ${parsed.error.message.slice(0, 300)}`);
  return parsed.data;
}

function excerpt(text: string): string {
  return text.slice(0, 300);
}
