import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Sql } from '../../db/client.js';
import {
  claimIdempotencyKey,
  leaveResumable,
  releaseIdempotencyKey,
  storeIdempotentResponse,
  type IdempotencyScope,
  type StoredResponse,
} from '../../domain/access/index.js';
import { canonicalJson, Problem, withShop, type Tx } from '../../domain/kernel/index.js';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problems.js';

/**
 * An `Idempotency-Key` is any header value of 1 to 255 bytes, compared byte for byte (the spec says
 * "string"; docs/decisions records the rule). Node reads a header's bytes as Latin-1, one character
 * a byte, so UTF-8 text counts its bytes; HTTP has already dropped the spaces around the value and
 * refused control characters but the tab.
 */
const KEY_PATTERN = /^[\t\x20-\x7e\x80-\xff]{1,255}$/;
const KEY_RULE = '1 to 255 bytes: any text a header carries (letters, digits, punctuation, spaces inside, UTF-8), compared byte for byte';

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url.split('?')[0]}\n${canonicalJson(request.body ?? null)}`)
    .digest('hex');
}

/**
 * The bytes Fastify would send for `payload` with `statusCode` and `contentType`: the route's
 * response serializer for that status (the JSON default without one), so a stored response equals
 * the one sent without an Idempotency-Key. Problem statuses are declared per content type
 * (`application/problem+json`), which `reply.serialize` alone does not look up.
 */
function serialized(reply: FastifyReply, statusCode: number, payload: unknown, contentType = 'application/json'): string {
  const byContentType = reply.getSerializationFunction(String(statusCode), contentType);
  const body = byContentType ? byContentType(payload as Record<string, unknown>) : reply.status(statusCode).serialize(payload);
  return typeof body === 'string' ? body : Buffer.from(body instanceof ArrayBuffer ? new Uint8Array(body) : body).toString('utf8');
}

function send(reply: FastifyReply, response: StoredResponse): void {
  void reply.status(response.statusCode).headers(response.headers).send(response.body);
}

/**
 * Runs a creation in one shop transaction, honouring `Idempotency-Key`
 * (docs/decisions/0032-idempotency-keys-scope-lifetime-and-replay.md): the
 * first request executes and its outcome (success or 4xx refusal) is stored with the write; the same
 * key and body within 24 h replays it with `Idempotent-Replayed: true`; a different body is 422;
 * while the first still runs, 409 with `Retry-After: 1`. Server errors are not stored.
 */
export async function respondIdempotently(
  sql: Sql,
  baseUrl: string,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  work: (tx: Tx) => Promise<unknown>,
): Promise<void> {
  const shopId = request.auth.shop.id;
  return respond(sql, baseUrl, request, reply, status, {
    plain: () => withShop(sql, shopId, work),
    recorded: (record) => withShop(sql, shopId, async (tx) => record(tx, await work(tx))),
  });
}

/** What a creation that is not one transaction may leave going on when it answers a server error. */
export interface Resumable {
  /** What an identical earlier request (same key, same body) left going on, to answer for now. */
  readonly earlier: string | undefined;
  /** Names what this request leaves going on should it end in a server error; none without a key. */
  leave(ref: string): void;
}

/**
 * The same for a creation that is not one transaction (a shipment push: the row is committed, then
 * the carrier is called through a workflow): the outcome is stored once `work` has its answer. A
 * server error after `leave` keeps the key resumable: the same request answers for that work again.
 */
export async function respondIdempotentlyAfter(
  sql: Sql,
  baseUrl: string,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  work: (resumable: Resumable) => Promise<unknown>,
): Promise<void> {
  const shopId = request.auth.shop.id;
  return respond(sql, baseUrl, request, reply, status, {
    plain: () => work({ earlier: undefined, leave: () => undefined }),
    recorded: async (record, resumable) => {
      const body = await work(resumable);
      return withShop(sql, shopId, (tx) => record(tx, body));
    },
  });
}

async function respond(
  sql: Sql,
  baseUrl: string,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  run: {
    plain: () => Promise<unknown>;
    recorded: (record: (tx: Tx, body: unknown) => Promise<StoredResponse>, resumable: Resumable) => Promise<StoredResponse>;
  },
): Promise<void> {
  const header = request.headers['idempotency-key'];
  const shopId = request.auth.shop.id;
  if (header === undefined) {
    const body = await run.plain();
    void reply.status(status).send(body);
    return;
  }
  if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
    const detail = `Idempotency-Key must be ${KEY_RULE}; a UUID is recommended (got ${String(header).length} bytes)`;
    throw new Problem('validation-failed', detail, { errors: [{ path: 'Idempotency-Key', message: `must be ${KEY_RULE}` }] });
  }
  const scope: IdempotencyScope = { shopId, applicationId: request.auth.applicationId, key: header };
  const claim = await claimIdempotencyKey(sql, scope, requestHash(request));
  switch (claim.outcome) {
    case 'reused':
      throw new Problem(
        'idempotency-key-reused',
        'this Idempotency-Key was already used with a different request; use a new key for a new request',
      );
    case 'in-progress':
      throw new Problem(
        'idempotency-key-in-progress',
        'an earlier request with this Idempotency-Key is still running; resend the same request in a moment',
        {
          headers: { 'retry-after': '1' },
        },
      );
    case 'replay':
      return send(reply.header('idempotent-replayed', 'true'), claim.response);
  }
  let left: string | undefined = claim.resume;
  const resumable: Resumable = { earlier: claim.resume, leave: (ref) => void (left = ref) };
  try {
    const response = await run.recorded(async (tx, body) => {
      const stored: StoredResponse = {
        statusCode: status,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: serialized(reply, status, body),
      };
      await storeIdempotentResponse(tx, scope, stored);
      return stored;
    }, resumable);
    return send(reply, response);
  } catch (error) {
    if (error instanceof Problem && error.status < 500) {
      const refusal: StoredResponse = {
        statusCode: error.status,
        headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...error.options.headers },
        body: serialized(reply, error.status, problemBody(error, baseUrl), PROBLEM_CONTENT_TYPE),
      };
      await withShop(sql, shopId, (tx) => storeIdempotentResponse(tx, scope, refusal));
      return send(reply, refusal);
    }
    await (left === undefined ? releaseIdempotencyKey(sql, scope) : leaveResumable(sql, scope, left));
    throw error;
  }
}
