import { OWNER_ROLE, workingMembers } from '../access/index.js';
import type { Tx } from '../kernel/index.js';

/** Whom an order goes to, as the request names it (spec, Orders, rules 2–5). */
export interface HandlerChoice {
  handlerUserId?: string | null | undefined;
  handlerRoleId?: string | null | undefined;
}

/** A user may handle orders while working in the shop, unlocked, in a role holding `pos.orders.update`. */
const USABLE_MEMBERS = (tx: Tx) => tx`
  ${workingMembers(tx)} m
  where 'pos.orders.update' = any(m.permissions)`;

export async function isUsableHandler(tx: Tx, userId: string): Promise<boolean> {
  const [row] = await tx`select 1 from ${USABLE_MEMBERS(tx)} and m.user_id = ${userId}`;
  return Boolean(row);
}

/** The usable members of a role, by user id; empty for an unknown role. */
export async function usableMembersOfRole(tx: Tx, roleId: string): Promise<string[]> {
  const rows = await tx<{ userId: string }[]>`select m.user_id from ${USABLE_MEMBERS(tx)} and m.role_id = ${roleId} order by m.user_id`;
  return rows.map((row) => row.userId);
}

/**
 * The handler of a new order; never refuses. Tiers: the named user if usable; round-robin among
 * the usable members of the named role; round-robin among usable members of roles that see only
 * their own orders; round-robin among the three usable members with the most orders of the last
 * 30 days; finally the earliest-joined working, unlocked member, Owner role first (null only in a
 * shop without any such member).
 */
export async function assignHandler(tx: Tx, shopId: string, choice: HandlerChoice): Promise<string | null> {
  if (choice.handlerUserId && (await isUsableHandler(tx, choice.handlerUserId))) return choice.handlerUserId;
  if (choice.handlerRoleId) {
    const members = await usableMembersOfRole(tx, choice.handlerRoleId);
    if (members.length > 0) return nextInTurn(tx, shopId, `role:${choice.handlerRoleId}`, members);
  }
  const ownOrders = await tx<
    { userId: string }[]
  >`select m.user_id from ${USABLE_MEMBERS(tx)} and m.sees_only_own_orders order by m.user_id`;
  if (ownOrders.length > 0)
    return nextInTurn(
      tx,
      shopId,
      'own-orders-roles',
      ownOrders.map((row) => row.userId),
    );
  const busiest = await busiestHandlers(tx, shopId);
  if (busiest.length > 0) return nextInTurn(tx, shopId, 'busiest-handlers', [...busiest].sort());
  const [fallback] = await tx<{ userId: string }[]>`
    select m.user_id from ${workingMembers(tx)} m
    order by m.role_name = ${OWNER_ROLE} desc, m.joined_at, m.user_id
    limit 1`;
  return fallback?.userId ?? null;
}

/** How long a count of the busiest handlers serves before it is made again. */
export const BUSIEST_RECOUNT_SECONDS = 60;

/**
 * The (at most) three usable members with the most orders of the last 30 days, most first. The
 * count is kept per shop for a minute: a month of orders is too many to count on every creation.
 */
async function busiestHandlers(tx: Tx, shopId: string): Promise<string[]> {
  const [kept] = await tx<{ userIds: string[] }[]>`
    select user_ids from busiest_handlers where counted_at > now() - make_interval(secs => ${BUSIEST_RECOUNT_SECONDS})`;
  if (kept) return kept.userIds;
  const counted = await tx<{ userId: string }[]>`
    with recent as (
      select handler_user_id as user_id, count(*) as orders from orders
      where created_at > now() - interval '30 days' and handler_user_id is not null
      group by handler_user_id
    )
    select m.user_id from ${USABLE_MEMBERS(tx)}
      and exists (select 1 from recent where recent.user_id = m.user_id)
    order by (select orders from recent where recent.user_id = m.user_id) desc, m.user_id
    limit 3`;
  const userIds = counted.map((row) => row.userId);
  await tx`
    insert into busiest_handlers (shop_id, user_ids, counted_at) values (${shopId}, ${userIds}, now())
    on conflict (shop_id) do update set user_ids = excluded.user_ids, counted_at = excluded.counted_at`;
  return userIds;
}

/**
 * Round-robin over `candidates` (sorted): the member after the last one served in this scope. The
 * cursor row stays locked until the transaction ends, so concurrent creations take turns fairly.
 */
export async function nextInTurn(tx: Tx, shopId: string, scope: string, candidates: readonly string[]): Promise<string> {
  const [cursor] = await tx<{ lastUserId: string | null }[]>`
    insert into order_assignment_cursors (shop_id, scope) values (${shopId}, ${scope})
    on conflict (shop_id, scope) do update set scope = excluded.scope
    returning last_user_id`;
  const last = cursor?.lastUserId ?? null;
  const next = candidates.find((userId) => last === null || userId > last) ?? candidates[0]!;
  await tx`update order_assignment_cursors set last_user_id = ${next}, updated_at = clock_timestamp() where shop_id = ${shopId} and scope = ${scope}`;
  return next;
}
