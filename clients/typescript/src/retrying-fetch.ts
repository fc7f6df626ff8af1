export interface RetryOptions {
  /** Attempts in all, the first included. Default 5. */
  maxAttempts?: number;
  /** First back-off after a 5xx or a network error, doubled each time, with full jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest wait between attempts, `Retry-After` included. Default 30 s. */
  maxDelayMs?: number;
}

type Fetch = typeof fetch;

/** The 409 of an earlier attempt with the same key still running: sent again after `Retry-After`. */
const IN_PROGRESS = 'idempotency-key-in-progress';

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true });
  });

/** Seconds of `Retry-After` (a number or an HTTP date), or undefined when absent or unreadable. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

async function isInProgress(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  try {
    return ((await response.clone().json()) as { code?: unknown }).code === IN_PROGRESS;
  } catch {
    return false;
  }
}

/**
 * `fetch` with the spec's client rules (spec, Errors: Groups): a POST gets an `Idempotency-Key` (unless
 * it has one), the same on every attempt; 429 and 409 `idempotency-key-in-progress` wait for
 * `Retry-After`; 5xx and network errors back off exponentially; any other 4xx is returned at once.
 */
export function retryingFetch(options: RetryOptions = {}, inner: Fetch = globalThis.fetch): Fetch {
  const { maxAttempts = 5, baseDelayMs = 500, maxDelayMs = 30_000 } = options;
  const backoff = (attempt: number) => Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);

  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', crypto.randomUUID());
    for (let attempt = 0; ; attempt++) {
      const last = attempt + 1 >= maxAttempts;
      let response: Response;
      try {
        response = await inner(request.clone());
      } catch (error) {
        // The caller's abort is final; anything else (connection refused, reset, dropped) is retried.
        if (last || request.signal.aborted) throw error;
        await sleep(backoff(attempt), request.signal);
        continue;
      }
      let wait: number | undefined;
      if (response.status === 429 || (await isInProgress(response))) wait = retryAfterMs(response) ?? 1000;
      else if (response.status >= 500) wait = retryAfterMs(response) ?? backoff(attempt);
      if (wait === undefined || last) return response;
      await response.body?.cancel();
      await sleep(Math.min(wait, maxDelayMs), request.signal);
    }
  };
}
