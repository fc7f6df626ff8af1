import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Sql } from '../../db/client.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';
import { boundedPasswordCheck, throttleLoginAccount, throttleLoginAddress, type ShopFailedChecks } from './login-guards.js';
import type { LoginDevices } from './login-devices.js';
import { SESSION_TOKEN_SHAPE } from './session-misses.js';
import { verifyPassword } from './passwords.js';
import { Problem, withShop } from '../kernel/index.js';
import { findShop, type ShopSummary } from './shops.js';
import { memberPermissions } from './users.js';

export const SESSION_HOURS = 12;

/** The admin app's languages, Vietnamese first; a person's choice is kept on their account. */
export const ADMIN_LANGUAGES = ['vi', 'en'] as const;
export type AdminLanguage = (typeof ADMIN_LANGUAGES)[number];

export interface AdminSession {
  userId: string;
  userName: string;
  email: string;
  /** The person's choice, null until they make one. */
  language: AdminLanguage | null;
  shopId: string;
  shopSlug: string;
  shopName: string;
  csrfToken: string;
  permissions: string[];
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const refuse = () => new Problem('invalid-credentials', 'the shop, e-mail or password is wrong');

export interface LoginGuards {
  /** The caller's address bucket (`request.ip`), throttled on its own and with each account. */
  clientAddress: string;
  /** Bounds the password checks running at once, per process and per address. */
  passwordChecks: ConcurrencyLimit;
  /** The same for logins from a browser the account logged in from before (`devices`), kept apart so a flood cannot fill it. */
  knownDeviceChecks: ConcurrencyLimit;
  /** Each shop's failed checks for logins from browsers the account does not know (login-guards.ts SHOP_FAILED_CHECKS). */
  shopFailedChecks: ShopFailedChecks;
  devices: LoginDevices;
  /** The browser's mark of an earlier login (its cookie), if it sent one. */
  deviceMark: string | undefined;
}

/**
 * E-mail and password of a working, unlocked member of the shop; returns the session token (for
 * the cookie). The attempt is throttled per address, per account and address, and (a slow-down
 * the right password still passes) per account before any password check; from a browser the account
 * does not know, also by its shop's failed checks.
 */
export async function logIn(
  sql: Sql,
  input: { shop: string; email: string; password: string },
  guards: LoginGuards,
): Promise<{ token: string; session: AdminSession }> {
  const email = input.email.trim().toLowerCase();
  // A flood of guesses at a shop whose failed checks are spent ends here, before any database work.
  guards.shopFailedChecks.refuseWhileSpent(input.shop, (shopId) => guards.devices.isKnown(shopId, email, guards.deviceMark));
  await throttleLoginAddress(sql, guards.clientAddress);
  // An unknown shop looks like a wrong password; any other failure (the database) is not hidden as one.
  const shop = await findShop(sql, input.shop).catch((error: unknown) => {
    if (error instanceof Problem && error.code === 'not-found') return undefined;
    throw error;
  });
  const knownDevice = shop !== undefined && guards.devices.isKnown(shop.id, email, guards.deviceMark);
  // Before any other work: once its failed checks are spent, a shop's guesses end here.
  const giveCheckBack = knownDevice ? () => undefined : guards.shopFailedChecks.take(input.shop, shop?.id);
  try {
    const loggedIn = await checkedLogIn(sql, { ...input, email }, shop, knownDevice, guards);
    giveCheckBack();
    return loggedIn;
  } catch (error) {
    // Only a wrong password (or no such member) keeps the check it took.
    if (!(error instanceof Problem && error.code === 'invalid-credentials')) giveCheckBack();
    throw error;
  }
}

/** logIn once the shop's failed checks let it through: the account's throttles, the password check, the session. */
async function checkedLogIn(
  sql: Sql,
  input: { shop: string; email: string; password: string },
  shop: ShopSummary | undefined,
  knownDevice: boolean,
  guards: LoginGuards,
): Promise<{ token: string; session: AdminSession }> {
  const { email } = input;
  const refundAttempt = await throttleLoginAccount(sql, shop?.id ?? input.shop, email, guards.clientAddress);
  const checkPassword = (stored: string | null | undefined) =>
    // A dummy hash when there is no such shop or user, so every refusal takes as long.
    boundedPasswordCheck(knownDevice ? guards.knownDeviceChecks : guards.passwordChecks, guards.clientAddress, () =>
      verifyPassword(input.password, stored ?? DUMMY_HASH),
    );
  // The user is read, and the password checked, outside any transaction: a login waiting for a
  // check slot holds no database connection.
  const user = shop && (await loginMember(sql, shop.id, email));
  const passwordOk = await checkPassword(user?.passwordHash);
  if (!shop || !user?.passwordHash || !passwordOk) throw refuse();
  const loggedIn = await withShop(sql, shop.id, async (tx) => {
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(24).toString('base64url');
    // Only while the member is still working, unlocked and has the password just checked.
    const created = await tx`
      insert into admin_sessions (token_hash, shop_id, user_id, csrf_token, expires_at)
      select ${hash(token)}, ${shop.id}, u.id, ${csrfToken}, now() + make_interval(hours => ${SESSION_HOURS})
      from users u join shop_members m on m.user_id = u.id
      where u.id = ${user.id} and u.password_hash = ${user.passwordHash} and m.status = 'working' and not u.locked`;
    if (created.count !== 1) throw refuse();
    return {
      token,
      session: {
        userId: user.id,
        userName: user.name,
        email,
        language: user.language,
        shopId: shop.id,
        shopSlug: shop.slug,
        shopName: shop.name,
        csrfToken,
        permissions: await memberPermissions(tx, user.id),
      },
    };
  });
  await refundAttempt();
  return loggedIn;
}

/** The working, unlocked member of the shop with this e-mail, with the password hash to check. */
async function loginMember(sql: Sql, shopId: string, email: string) {
  const [member] = await withShop(
    sql,
    shopId,
    (tx) => tx<{ id: string; name: string; language: AdminLanguage | null; passwordHash: string | null }[]>`
      select u.id, u.name, u.language, u.password_hash from users u join shop_members m on m.user_id = u.id
      where u.email = ${email} and m.status = 'working' and not u.locked`,
  );
  return member;
}

/** The live session of a cookie token, with the member's current permissions; 401 otherwise. */
export async function sessionOf(sql: Sql, token: string | undefined): Promise<AdminSession> {
  // A token not of the shape logIn makes is no session: refused without a lookup.
  if (!token || !SESSION_TOKEN_SHAPE.test(token)) throw new Problem('not-logged-in', 'log in first (POST /api/admin/session)');
  const tokenHash = hash(token);
  const session = await sql.begin(async (tx) => {
    await tx`select set_config('app.session_token_hash', ${tokenHash}, true)`;
    const [row] = await tx<{ shopId: string; userId: string; csrfToken: string }[]>`
      select shop_id, user_id, csrf_token from admin_sessions where token_hash = ${tokenHash} and expires_at > now()`;
    if (!row) return undefined;
    await tx`select set_config('app.shop_id', ${row.shopId}, true)`;
    const [member] = await tx<{ name: string; email: string; language: AdminLanguage | null; slug: string; shopName: string }[]>`
      select u.name, u.email, u.language, s.slug, s.name as shop_name from users u join shop_members m on m.user_id = u.id join shops s on s.id = m.shop_id
      join admin_sessions a on a.token_hash = ${tokenHash}
      where u.id = ${row.userId} and m.status = 'working' and not u.locked
        -- A new password or a lock ends older sessions in every shop, also those updateMember could not see.
        and a.created_at >= greatest(u.password_changed_at, u.sessions_ended_at, '-infinity')`;
    if (!member) return undefined;
    return {
      userId: row.userId,
      userName: member.name,
      email: member.email,
      language: member.language,
      shopId: row.shopId,
      shopSlug: member.slug,
      shopName: member.shopName,
      csrfToken: row.csrfToken,
      permissions: await memberPermissions(tx, row.userId),
    };
  });
  if (!session) throw new Problem('not-logged-in', 'the session has ended; log in again');
  return session;
}

export function assertCsrfToken(session: AdminSession, sent: string | undefined): void {
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(sent ?? '');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new Problem('csrf-token-invalid', 'send the csrfToken of the login answer in the X-CSRF-Token header');
  }
}

/** The person's language, on their account: it follows them to every browser and shop. */
export async function chooseAdminLanguage(sql: Sql, session: AdminSession, language: AdminLanguage): Promise<AdminSession> {
  await withShop(sql, session.shopId, (tx) => tx`update users set language = ${language} where id = ${session.userId}`);
  return { ...session, language };
}

export async function logOut(sql: Sql, session: AdminSession, token: string): Promise<void> {
  await withShop(sql, session.shopId, (tx) => tx`delete from admin_sessions where token_hash = ${hash(token)}`);
}

const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
