import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Sql } from '../../db/client.js';
import { enforceRate } from './rate-limits.js';

/** How long an operator's codec session lasts: a working day. */
export const OPERATOR_SESSION_HOURS = 8;
/** Operator log-ins per client address a minute: the token is long, this only slows a guesser down. */
const OPERATOR_LOGINS_PER_MINUTE = 10;

function equalText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const signature = (operatorToken: string, expires: number) =>
  createHmac('sha256', operatorToken).update(`operator-session:${expires}`).digest('base64url');

/** True when `given` is the operator token (settings `CODEC_OPERATOR_TOKEN`), compared in constant time. */
export function isOperatorToken(operatorToken: string, given: string): boolean {
  return equalText(operatorToken, given);
}

/** A session value for the operator's browser: its expiry and a signature under the operator token (changing the token ends every session). */
export function operatorSession(operatorToken: string, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + OPERATOR_SESSION_HOURS * 3600;
  return `${expires}.${signature(operatorToken, expires)}`;
}

/** True for a session `operatorSession` made with this token that has not expired. */
export function isOperatorSession(operatorToken: string, value: string, now = Date.now()): boolean {
  const [expiresText, given] = value.split('.');
  const expires = Number(expiresText);
  if (!given || !Number.isInteger(expires) || expires * 1000 <= now) return false;
  return equalText(signature(operatorToken, expires), given);
}

/** Counts an operator log-in against the client address; 429 over the limit. */
export async function throttleOperatorLogin(sql: Sql, addressBucket: string): Promise<void> {
  await enforceRate(sql, `operator-login:ip:${addressBucket}`, OPERATOR_LOGINS_PER_MINUTE, 'operator log-ins from this address');
}
