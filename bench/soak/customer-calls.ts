import { setTimeout as sleep } from 'node:timers/promises';

export interface CallCounts {
  /** Calls answered 201 (a replay of a committed creation included). */
  created: number;
  /** Of those, answers replayed from the Idempotency-Key's stored outcome (`Idempotent-Replayed: true`). */
  replayed: number;
  /** Requests that reached no answer (connection refused or reset): each retried on the other instance. */
  failedOver: number;
  /** Answers 409 `idempotency-key-in-progress`, 429 or 5xx, retried after `Retry-After`. */
  retried: number;
  /** Calls given up: an answer other than those, or no 201 within the call's deadline. */
  notCreated: number;
  /** When the last 201 arrived (epoch ms). */
  lastCreatedAt: number;
}

const CALL_DEADLINE_MS = 150_000;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * `POST /customers`, the cheapest call that commits an event (`customer.created`), one intended
 * creation per index: alternating between the API instances, each with its own Idempotency-Key. A
 * call that finds its instance down is sent again, same key and same API key (the key's scope is the
 * application), to the other instance, so each index creates at most one customer.
 */
export function customerCalls(apiUrls: string[], apiKeys: string[], runId: string) {
  const counts: CallCounts = { created: 0, replayed: 0, failedOver: 0, retried: 0, notCreated: 0, lastCreatedAt: 0 };
  const call = async (index: number): Promise<void> => {
    const headers = {
      authorization: `Bearer ${apiKeys[index % apiKeys.length]}`,
      'content-type': 'application/json',
      'idempotency-key': `soak-${runId}-${index}`,
    };
    const body = JSON.stringify({ name: `Khách soak ${index}` });
    const deadline = Date.now() + CALL_DEADLINE_MS;
    let instance = index % apiUrls.length;
    while (Date.now() < deadline) {
      const response = await fetch(`${apiUrls[instance]}/api/open/v1/customers`, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }).catch(() => undefined);
      if (!response) {
        counts.failedOver += 1;
        instance = (instance + 1) % apiUrls.length;
        await sleep(200);
        continue;
      }
      await response.arrayBuffer();
      if (response.status === 201) {
        counts.created += 1;
        if (response.headers.get('idempotent-replayed') === 'true') counts.replayed += 1;
        counts.lastCreatedAt = Date.now();
        return;
      }
      if (response.status !== 409 && response.status !== 429 && response.status < 500) break;
      counts.retried += 1;
      await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
    }
    counts.notCreated += 1;
  };
  return { counts, call };
}
