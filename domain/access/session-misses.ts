import { createHash } from 'node:crypto';

/** Unknown session tokens an address may present in a minute before its requests are refused unread. */
export const SESSION_MISSES_PER_MINUTE = 20;
const WINDOW_MS = 60_000;
/** Entries kept per process: addresses counted, tokens recently found valid. */
const KEPT = 50_000;

/** A session token as logIn makes them (32 random bytes, base64url): anything else is not looked up. */
export const SESSION_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The admin API's door, in memory: a request whose session cookie the database does not know costs a
 * transaction, so an address past SESSION_MISSES_PER_MINUTE such misses has its requests refused 429
 * before any database work for the rest of its minute. Tokens found valid in this process pass all the
 * same (a member behind the same address as a guesser is not locked out), as do tokens it just issued.
 */
export class SessionMisses {
  readonly #misses = new Map<string, { count: number; since: number }>();
  readonly #valid = new Map<string, number>();

  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Seconds until `address` may present unknown tokens again, or 0 when `token` may be looked up now. */
  refusal(address: string, token: string): number {
    const misses = this.#misses.get(address);
    if (!misses || misses.count < SESSION_MISSES_PER_MINUTE) return 0;
    const left = misses.since + WINDOW_MS - this.now();
    if (left <= 0) {
      this.#misses.delete(address);
      return 0;
    }
    const validUntil = this.#valid.get(digest(token));
    return validUntil !== undefined && validUntil > this.now() ? 0 : Math.ceil(left / 1000);
  }

  /** The database knew no live session for the token `address` sent. */
  missed(address: string): void {
    const now = this.now();
    const misses = this.#misses.get(address);
    if (!misses || misses.since + WINDOW_MS <= now) {
      if (this.#misses.size >= KEPT) this.#forgetOldest(this.#misses);
      this.#misses.set(address, { count: 1, since: now });
    } else misses.count += 1;
  }

  /** The token is a live session (looked up, or just issued): it passes for a minute. */
  valid(token: string): void {
    const key = digest(token);
    this.#valid.delete(key);
    if (this.#valid.size >= KEPT) this.#forgetOldest(this.#valid);
    this.#valid.set(key, this.now() + WINDOW_MS);
  }

  #forgetOldest(map: Map<string, unknown>): void {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');
