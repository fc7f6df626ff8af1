import type { Sql } from '../../db/client.js';
import { withShop, type Tx } from '../kernel/index.js';

export const IDEMPOTENCY_WINDOW_HOURS = 24;
/** A `running` record older than this was left by a crashed request: the next identical request takes over. */
export const ABANDONED_AFTER_SECONDS = 60;

export interface IdempotencyScope {
  shopId: string;
  applicationId: string;
  key: string;
}

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyClaim =
  | { outcome: 'execute'; resume?: string }
  | { outcome: 'replay'; response: StoredResponse }
  | { outcome: 'in-progress' }
  | { outcome: 'reused' };

/**
 * Claims `key` for this request, in its own committed transaction so that concurrent requests see
 * the claim at once. Exactly one of several identical concurrent requests gets `execute`; it carries
 * `resume` when an earlier identical request left its work going on (`leaveResumable`).
 */
export async function claimIdempotencyKey(sql: Sql, scope: IdempotencyScope, requestHash: string): Promise<IdempotencyClaim> {
  return withShop(sql, scope.shopId, async (tx) => {
    const window = tx`make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`;
    // A resumable key keeps its first use's time: its 24 hours do not start again with each retry.
    const [claimed] = await tx<{ resumeRef: string | null }[]>`
      insert into idempotency_keys as k (shop_id, application_id, idempotency_key, request_hash, state)
      values (${scope.shopId}, ${scope.applicationId}, ${scope.key}, ${requestHash}, 'running')
      on conflict (shop_id, application_id, idempotency_key) do update
        set request_hash = excluded.request_hash, state = 'running',
            created_at = case when k.state = 'resumable' and k.created_at >= now() - ${window} then k.created_at else now() end,
            resume_ref = case when k.state = 'resumable' and k.created_at >= now() - ${window} then k.resume_ref end,
            status_code = null, response_headers = null, response_body = null
        where k.created_at < now() - ${window}
           or (k.state = 'running' and k.request_hash = excluded.request_hash
               and k.created_at < now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS}))
           or (k.state = 'resumable' and k.request_hash = excluded.request_hash)
      returning resume_ref`;
    if (claimed) return claimed.resumeRef ? { outcome: 'execute', resume: claimed.resumeRef } : { outcome: 'execute' };
    const [existing] = await tx<
      { requestHash: string; state: string; statusCode: number; responseHeaders: Record<string, string>; responseBody: string }[]
    >`
      select request_hash, state, status_code, response_headers, response_body from idempotency_keys
      where application_id = ${scope.applicationId} and idempotency_key = ${scope.key}`;
    if (!existing || existing.requestHash !== requestHash) return { outcome: 'reused' };
    if (existing.state === 'running') return { outcome: 'in-progress' };
    return {
      outcome: 'replay',
      response: { statusCode: existing.statusCode, headers: existing.responseHeaders, body: existing.responseBody },
    };
  });
}

/** Stores the outcome; called inside the transaction of the write itself, so both commit or neither. */
export async function storeIdempotentResponse(tx: Tx, scope: IdempotencyScope, response: StoredResponse): Promise<void> {
  await tx`
    update idempotency_keys
    set state = 'done', status_code = ${response.statusCode}, response_headers = ${tx.json(response.headers)}, response_body = ${response.body}
    where application_id = ${scope.applicationId} and idempotency_key = ${scope.key}`;
}

/**
 * A server error whose work goes on (a push the carrier has not answered yet): nothing is stored, and
 * the same request with this key resumes `ref` rather than starting the work again.
 */
export async function leaveResumable(sql: Sql, scope: IdempotencyScope, ref: string): Promise<void> {
  await withShop(
    sql,
    scope.shopId,
    (tx) => tx`
    update idempotency_keys set state = 'resumable', resume_ref = ${ref}
    where application_id = ${scope.applicationId} and idempotency_key = ${scope.key} and state = 'running'`,
  );
}

/** Server errors are not stored: the claim is dropped so that a retry executes afresh. */
export async function releaseIdempotencyKey(sql: Sql, scope: IdempotencyScope): Promise<void> {
  await withShop(
    sql,
    scope.shopId,
    (tx) => tx`
    delete from idempotency_keys where application_id = ${scope.applicationId} and idempotency_key = ${scope.key} and state = 'running'`,
  );
}
