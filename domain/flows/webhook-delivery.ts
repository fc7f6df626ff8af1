import { Webhook } from 'standardwebhooks';

/** What one delivery attempt's answer means (DESIGN.md, webhook delivery). */
export type AttemptVerdict = 'delivered' | 'gone' | 'retry';

export const RESPONSE_EXCERPT_BYTES = 4 * 1024;
export const CONNECT_TIMEOUT_MS = 5_000;
export const ATTEMPT_TIMEOUT_MS = 15_000;

/** 2xx succeeds; 410 stops for good; everything else (3xx included: redirects are not followed) is retried. */
export function verdictForStatus(status: number): AttemptVerdict {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'gone';
  return 'retry';
}

/** `Retry-After` of a 429 or 503, in seconds (delta-seconds or an HTTP date); other statuses ignore it. */
export function retryAfterSeconds(status: number, header: string | undefined, now: Date): number | undefined {
  if ((status !== 429 && status !== 503) || !header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}

/**
 * The Standard Webhooks headers for one attempt. During a secret rotation every live secret signs,
 * and the signatures are sent space-separated, newest first.
 */
export function signedHeaders(secrets: readonly string[], deliveryId: string, attemptedAt: Date, payload: string): Record<string, string> {
  if (secrets.length === 0) throw new Error('no signing secret');
  const signatures = secrets.map((secret) => new Webhook(secret).sign(deliveryId, attemptedAt, payload));
  return {
    'webhook-id': deliveryId,
    'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
