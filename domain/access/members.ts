import type { Fragment, Named, Tx } from '../kernel/index.js';
import { refuseAbsent } from '../kernel/index.js';

/** Working members whose account is not locked; the id is the user id (an order's `handlerUserId`). */
export async function listStaff(tx: Tx): Promise<Named[]> {
  const rows = await tx<Named[]>`
    select u.id, u.name
    from shop_members m join users u on u.id = m.user_id
    where m.status = 'working' and not u.locked
    order by lower(unaccent(u.name)), u.name, u.id`;
  return [...rows];
}

/** Every role of the shop (connection applications carry permissions, not roles). */
export async function listRoles(tx: Tx): Promise<Named[]> {
  return [...(await tx<Named[]>`select id, name from roles order by lower(unaccent(name)), name, id`)];
}

/**
 * A `from` item of the shop's working members with an unlocked account, for another module's query:
 * columns `user_id`, `role_id`, `role_name`, `permissions` (the role's), `sees_only_own_orders`, `joined_at`.
 */
export function workingMembers(tx: Tx): Fragment {
  return tx`(
    select m.user_id, m.role_id, r.name as role_name, r.permissions, r.sees_only_own_orders, m.joined_at
    from shop_members m
    join users u on u.id = m.user_id
    join roles r on r.id = m.role_id
    where m.status = 'working' and not u.locked)`;
}

/** A `from` item of the shop's roles (column `id`). */
export function shopRoles(tx: Tx): Fragment {
  return tx`(select id from roles)`;
}

/** The name of the person `userId` (a column or value of the caller's query) as a scalar subquery; null for no member of the shop. */
export function userNameOf(tx: Tx, userId: Fragment): Fragment {
  return tx`(select u.name from users u where u.id = ${userId})`;
}

/** A user id must name a member of the shop (row-level security hides other shops' members): 400, detail only, otherwise. */
export async function assertMember(tx: Tx, userId: string, path: string): Promise<void> {
  const [row] = await tx`select 1 from shop_members where user_id = ${userId}`;
  if (!row) refuseAbsent([{ path, noun: 'staff member', id: userId }]);
}
