import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';

export interface RetryPolicy {
  /** Attempts per callback, the first included. */
  attempts: number;
  /** Wait before the second attempt; doubled for each further one. */
  baseDelayMs: number;
  /** How long one attempt may take before it counts as failed. */
  timeoutMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { attempts: 4, baseDelayMs: 1_000, timeoutMs: 10_000 };

export interface CallbackAttempt {
  at: string;
  /** The receiver's HTTP status, or null when the request itself failed. */
  status: number | null;
  error: string | null;
}

export interface CallbackRecord {
  id: number;
  url: string;
  orderCode: string;
  status: string | number;
  payload: unknown;
  state: 'queued' | 'held' | 'delivered' | 'failed' | 'lost';
  /** The id of the callback this one repeats (the `duplicate` control). */
  copyOf: number | null;
  /** How long it was held back (the `delay` control). */
  lateByMs: number;
  attempts: CallbackAttempt[];
}

/**
 * Sends a carrier's status callbacks to the URLs partners registered, verbatim (the secret is in
 * the URL), as JSON POSTs. Callbacks to one URL go one at a time in the order they were made;
 * a non-2xx answer or a network error is retried with a doubling back-off. Controls make the next
 * callbacks late, duplicated, reordered or lost, as real carriers' callbacks sometimes are.
 */
export class CallbackDispatcher {
  private readonly records: CallbackRecord[] = [];
  private readonly held: CallbackRecord[] = [];
  private readonly queues = new Map<string, Promise<void>>();
  private readonly pending = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private retry: RetryPolicy;
  private duplicateCount = 0;
  private loseCount = 0;
  private reorderGroup = 0;
  private late = { count: 0, delayMs: 0 };

  private readonly userAgent: string;

  constructor(userAgent: string, retry: Partial<RetryPolicy> = {}) {
    this.userAgent = userAgent;
    this.retry = { ...defaultRetryPolicy, ...retry };
  }

  send(url: string, payload: unknown, about: { orderCode: string; status: string | number }): CallbackRecord {
    const record = this.newRecord(url, payload, about, null);
    if (this.loseCount > 0) {
      this.loseCount -= 1;
      record.state = 'lost';
    } else if (this.reorderGroup > 0) {
      record.state = 'held';
      this.held.push(record);
      if (this.held.length >= this.reorderGroup) this.releaseHeld();
    } else {
      this.dispatch(record);
    }
    return record;
  }

  setRetry(retry: Partial<RetryPolicy>): void {
    this.retry = { ...this.retry, ...retry };
  }

  /** The next `count` callbacks are each sent twice. */
  duplicateNext(count: number): void {
    this.duplicateCount += count;
  }

  /** The next `count` callbacks are held, then sent newest first once the last of them is made. */
  reorderNext(count: number): void {
    this.reorderGroup = count;
  }

  /** The next `count` callbacks leave `delayMs` late, after callbacks made later than them. */
  delayNext(count: number, delayMs: number): void {
    this.late = { count, delayMs };
  }

  /** The next `count` callbacks are never sent (a partner must poll to learn of them). */
  loseNext(count: number): void {
    this.loseCount += count;
  }

  /** Sends a held reorder group now, newest first, even if it is not complete. */
  releaseHeld(): void {
    const group = this.held.splice(0).reverse();
    this.reorderGroup = 0;
    for (const record of group) {
      record.state = 'queued';
      this.dispatch(record);
    }
  }

  list(): readonly CallbackRecord[] {
    return this.records;
  }

  controls(): {
    duplicateNext: number;
    loseNext: number;
    reorderGroup: number;
    held: number;
    lateNext: number;
    lateByMs: number;
    retry: RetryPolicy;
  } {
    const { duplicateCount, loseCount, reorderGroup, late, retry } = this;
    return {
      duplicateNext: duplicateCount,
      loseNext: loseCount,
      reorderGroup,
      held: this.held.length,
      lateNext: late.count,
      lateByMs: late.delayMs,
      retry,
    };
  }

  /** Resolves when every callback not held has been delivered or given up. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  close(): void {
    this.stop.abort();
  }

  private newRecord(
    url: string,
    payload: unknown,
    about: { orderCode: string; status: string | number },
    copyOf: number | null,
  ): CallbackRecord {
    const { orderCode, status } = about;
    const record: CallbackRecord = {
      id: this.records.length + 1,
      url,
      orderCode,
      status,
      payload,
      state: 'queued',
      copyOf,
      lateByMs: 0,
      attempts: [],
    };
    this.records.push(record);
    return record;
  }

  private dispatch(record: CallbackRecord): void {
    this.enqueue(record);
    if (this.duplicateCount > 0) {
      this.duplicateCount -= 1;
      this.enqueue(this.newRecord(record.url, record.payload, { orderCode: record.orderCode, status: record.status }, record.id));
    }
  }

  private enqueue(record: CallbackRecord): void {
    if (this.late.count > 0) {
      this.late.count -= 1;
      record.lateByMs = this.late.delayMs;
      this.track(sleep(record.lateByMs, undefined, { signal: this.stop.signal }).then(() => this.inTurn(record)));
    } else {
      this.track(this.inTurn(record));
    }
  }

  /** Delivery after the callbacks queued before it for the same URL. */
  private inTurn(record: CallbackRecord): Promise<void> {
    const previous = this.queues.get(record.url) ?? Promise.resolve();
    const turn = previous.catch(() => undefined).then(() => this.deliver(record));
    this.queues.set(record.url, turn);
    return turn;
  }

  private track(delivery: Promise<void>): void {
    const tracked = delivery.catch(() => undefined).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  private async deliver(record: CallbackRecord): Promise<void> {
    const { attempts, baseDelayMs } = this.retry;
    for (let attempt = 1; attempt <= attempts && !this.stop.signal.aborted; attempt++) {
      if (attempt > 1) await sleep(baseDelayMs * 2 ** (attempt - 2), undefined, { signal: this.stop.signal });
      const outcome = await this.post(record);
      record.attempts.push(outcome);
      if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
        record.state = 'delivered';
        return;
      }
    }
    record.state = 'failed';
  }

  private async post(record: CallbackRecord): Promise<CallbackAttempt> {
    const at = new Date().toISOString();
    try {
      const response = await request(record.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': this.userAgent },
        body: JSON.stringify(record.payload),
        signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.retry.timeoutMs)]),
      });
      await response.body.dump();
      return { at, status: response.statusCode, error: null };
    } catch (error) {
      return { at, status: null, error: (error as Error).message };
    }
  }
}
