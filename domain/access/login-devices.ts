import { createHmac, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * Browsers a member has logged in from. A successful login leaves a mark in a cookie: an HMAC of the
 * shop and e-mail under a key derived from SECRETS_KEY. A later login to that account from that
 * browser checks its password in a pool of its own (PASSWORD_CHECKS_KNOWN_DEVICES), which no flood
 * of guesses from other browsers can fill: a member's usual browser still logs in during one.
 */
export interface LoginDevices {
  /** The mark a successful login leaves for the account. */
  markFor(shopId: string, email: string): string;
  /** Whether `mark` (the cookie, when sent) is this account's. */
  isKnown(shopId: string, email: string, mark: string | undefined): boolean;
}

export function loginDevices(secretsKey: KeyObject): LoginDevices {
  const key = Buffer.from(hkdfSync('sha256', secretsKey.export(), Buffer.alloc(0), 'shopflow login device mark', 32));
  const markFor = (shopId: string, email: string) => createHmac('sha256', key).update(`${shopId}\n${email}`).digest('base64url');
  return {
    markFor,
    isKnown(shopId, email, mark) {
      if (!mark) return false;
      const expected = Buffer.from(markFor(shopId, email));
      const given = Buffer.from(mark);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
