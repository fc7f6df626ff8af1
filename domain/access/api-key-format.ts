import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_PREFIX = 'svc_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECK_LENGTH = 6;
const KEY_PATTERN = /^svc_live_[0-9A-Za-z]{38}$/;

/** The pattern leak scanners use (spec, Authentication). */
export const LEAK_PATTERN = /\bsvc_live_[0-9A-Za-z]{38}\b/g;

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  do {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, '0');
}

function checkCode(body: string): string {
  return base62(crc32(body) >>> 0, CHECK_LENGTH);
}

/** `svc_live_` + 32 random base62 characters + 6 characters of CRC32 check code. */
export function generateApiKey(): string {
  let body = '';
  for (let index = 0; index < RANDOM_LENGTH; index += 1) body += BASE62[randomInt(62)];
  return `${KEY_PREFIX}${body}${checkCode(body)}`;
}

/** True when the key has the right shape and check code: anything else is refused before any query. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return key.slice(KEY_PREFIX.length + RANDOM_LENGTH) === checkCode(body);
}

/** Only this hash is stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What the connection screen shows of a key: enough to recognise it, too little to use it. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 6)}…`;
}
