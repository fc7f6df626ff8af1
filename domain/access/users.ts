import { randomUUID } from 'node:crypto';
import type { Sql } from '../../db/client.js';
import { hashPassword } from './passwords.js';
import { Problem, withShop, type Tx } from '../kernel/index.js';
import { OWNER_ROLE } from './shops.js';
import { writeShopLog } from './shop-log.js';

export type MemberStatus = 'working' | 'disabled' | 'left';

export interface NewMember {
  email: string;
  name: string;
  /** Role name in the shop; the Owner role by default. */
  role?: string;
  password?: string;
}

/** Adds a person to the shop: a new account, or an existing account (same e-mail) joining. */
export async function addMember(sql: Sql, shopId: string, input: NewMember): Promise<{ id: string; email: string }> {
  const email = input.email.trim().toLowerCase();
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return withShop(sql, shopId, async (tx) => {
    const [role] = await tx<{ id: string }[]>`select id from roles where name = ${input.role ?? OWNER_ROLE}`;
    if (!role) throw new Problem('validation-failed', `the shop has no role named ${input.role ?? OWNER_ROLE}`);
    await tx`select set_config('app.login_email', ${email}, true)`;
    let [user] = await tx<{ id: string }[]>`select id from users where email = ${email}`;
    if (!user) {
      user = { id: randomUUID() };
      await tx`insert into users (id, email, name, password_hash) values (${user.id}, ${email}, ${input.name}, ${passwordHash})`;
    }
    await tx`
      insert into shop_members (shop_id, user_id, role_id) values (${shopId}, ${user.id}, ${role.id})
      on conflict (shop_id, user_id) do update set role_id = excluded.role_id, status = 'working'`;
    await writeShopLog(tx, {
      shopId,
      actorUserId: null,
      action: 'member.added',
      subjectType: 'user',
      subjectId: user.id,
      details: { role: input.role ?? OWNER_ROLE },
    });
    return { id: user.id, email };
  });
}

export async function findMemberByEmail(tx: Tx, email: string): Promise<{ id: string } | undefined> {
  const [user] = await tx<{ id: string }[]>`
    select u.id from users u join shop_members m on m.user_id = u.id where u.email = ${email.trim().toLowerCase()}`;
  return user;
}

/** What a person may do in the current shop: their role's permissions while working and unlocked, else nothing. */
export async function memberPermissions(tx: Tx, userId: string): Promise<string[]> {
  const [row] = await tx<{ permissions: string[] }[]>`
    select r.permissions from shop_members m
    join roles r on r.id = m.role_id
    join users u on u.id = m.user_id
    where m.user_id = ${userId} and m.status = 'working' and not u.locked`;
  return row?.permissions ?? [];
}

/**
 * Leaving, disabling, locking or a new password end the person's admin sessions in this shop;
 * none of these touches the person's API keys.
 */
export async function updateMember(
  sql: Sql,
  shopId: string,
  userId: string,
  changes: { status?: MemberStatus; locked?: boolean; password?: string },
): Promise<void> {
  const passwordHash = changes.password ? await hashPassword(changes.password) : null;
  await withShop(sql, shopId, async (tx) => {
    if (changes.status) await tx`update shop_members set status = ${changes.status} where user_id = ${userId}`;
    if (changes.locked !== undefined || passwordHash) {
      await tx`
        update users set
          locked = coalesce(${changes.locked ?? null}, locked),
          password_hash = coalesce(${passwordHash}, password_hash),
          password_changed_at = case when ${passwordHash}::text is null then password_changed_at else now() end,
          sessions_ended_at = case when ${passwordHash}::text is null and ${changes.locked ?? null}::boolean is not true then sessions_ended_at else now() end
        where id = ${userId}`;
    }
    // Row-level security limits this to the shop's sessions; sessionOf refuses the others (sessions_ended_at).
    if (passwordHash || changes.locked === true || (changes.status && changes.status !== 'working')) {
      await tx`delete from admin_sessions where user_id = ${userId}`;
    }
    await writeShopLog(tx, {
      shopId,
      actorUserId: null,
      action: 'member.updated',
      subjectType: 'user',
      subjectId: userId,
      details: { status: changes.status, locked: changes.locked, passwordChanged: Boolean(passwordHash) },
    });
  });
}
