import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/**
 * A workflow input or signal with `seal`: an HMAC-SHA256, under the server-side
 * `WORKFLOW_SEAL_KEY`, of every other field and of its scope (the workflow id it was made for,
 * when given). The Temporal frontend is an untrusted transport (docs/security.md): whoever can start
 * a workflow or send a signal could otherwise have the worker act for any shop. Shopflow seals what it
 * starts and signals; activities act only on what verifies.
 */
export type Sealed<T extends object> = T & { seal: string };

function sealOf(key: string, fields: object, scope: string | undefined): string {
  const sealed = scope === undefined ? fields : { scope, fields };
  return createHmac('sha256', key).update(canonicalJson(sealed)).digest('base64url');
}

/** `fields` sealed for `scope` (a workflow id: the seal does not verify in another workflow). */
export function seal<T extends object>(key: string, fields: T, scope?: string): Sealed<T> {
  const { seal: _previous, ...rest } = fields as T & { seal?: string };
  return { ...(rest as T), seal: sealOf(key, rest, scope) };
}

/** True when `seal` covers exactly the other fields of `sealed` and `scope` (a field added or changed on the way breaks it). */
export function hasValidSeal(key: string, sealed: object & { seal?: unknown }, scope?: string): boolean {
  const { seal: given, ...fields } = sealed;
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(sealOf(key, fields, scope));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
