import { randomUUID } from 'node:crypto';
import { isUuid, Problem, withShop, type Fragment, type Tx } from '../kernel/index.js';
import type { Sql } from '../../db/client.js';
import { ALL_PERMISSIONS } from './permissions.js';
import { writeShopLog } from './shop-log.js';

export interface ShopSummary {
  id: string;
  slug: string;
  name: string;
}

export interface ShopSettings {
  plan?: 'active' | 'expired';
  suspended?: boolean;
  automationEnabled?: boolean;
  recomputeCeilingSeconds?: number;
  /** No order edit may set a price off the list or a discount. */
  lockPrices?: boolean;
}

export const OWNER_ROLE = 'Owner';

/** A shop by slug or id; 404 when there is none. */
export async function findShop(sql: Sql, slugOrId: string): Promise<ShopSummary> {
  const [shop] = await sql.begin(async (tx) => {
    if (isUuid(slugOrId)) {
      await tx`select set_config('app.shop_id', ${slugOrId}, true)`;
      return tx<ShopSummary[]>`select id, slug, name from shops where id = ${slugOrId}`;
    }
    await tx`select set_config('app.shop_slug', ${slugOrId}, true)`;
    return tx<ShopSummary[]>`select id, slug, name from shops where slug = ${slugOrId}`;
  });
  if (!shop) throw new Problem('not-found', `no shop ${slugOrId}`);
  return shop;
}

/** A new shop with its Owner role (every permission, people-only ones included). */
export async function createShop(sql: Sql, input: { slug: string; name: string }): Promise<ShopSummary> {
  const id = randomUUID();
  try {
    return await withShop(sql, id, async (tx) => {
      await tx`insert into shops (id, slug, name) values (${id}, ${input.slug}, ${input.name})`;
      await tx`insert into roles (shop_id, name, permissions) values (${id}, ${OWNER_ROLE}, ${ALL_PERMISSIONS as string[]})`;
      await writeShopLog(tx, { shopId: id, actorUserId: null, action: 'shop.created', subjectType: 'shop', subjectId: id });
      return { id, slug: input.slug, name: input.name };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new Problem('conflict', `a shop with slug ${input.slug} already exists`);
    if (isCheckViolation(error))
      throw new Problem('validation-failed', 'the slug must be lowercase letters, digits and dashes, and the name 1–255 characters');
    throw error;
  }
}

export async function updateShopSettings(
  sql: Sql,
  shopId: string,
  changes: ShopSettings,
  actorUserId: string | null = null,
): Promise<void> {
  await withShop(sql, shopId, async (tx) => {
    await tx`
      update shops set
        plan = coalesce(${changes.plan ?? null}, plan),
        suspended = coalesce(${changes.suspended ?? null}, suspended),
        automation_enabled = coalesce(${changes.automationEnabled ?? null}, automation_enabled),
        recompute_ceiling_seconds = coalesce(${changes.recomputeCeilingSeconds ?? null}, recompute_ceiling_seconds),
        lock_prices = coalesce(${changes.lockPrices ?? null}, lock_prices),
        updated_at = now()
      where id = ${shopId}`;
    await writeShopLog(tx, {
      shopId,
      actorUserId,
      action: 'shop.settings_changed',
      subjectType: 'shop',
      subjectId: shopId,
      details: { ...changes },
    });
  });
}

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

function isCheckViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23514';
}

/**
 * The shop owning an application or key, found by its id alone (operators' CLI; a flow's shop is the
 * flows module's lookup, `shopOfFlow` there).
 */
export async function shopOwning(sql: Sql, kind: 'application' | 'api_key', id: string): Promise<string> {
  if (!isUuid(id)) throw new Problem('validation-failed', `${id} is not a valid id`);
  const [row] = await sql.begin(async (tx) => {
    if (kind === 'application') {
      await tx`select set_config('app.application_id', ${id}, true)`;
      return tx<{ shopId: string }[]>`select shop_id from applications where id = ${id}`;
    }
    await tx`select set_config('app.api_key_id', ${id}, true)`;
    return tx<{ shopId: string }[]>`select shop_id from api_keys where id = ${id}`;
  });
  if (!row) throw new Problem('not-found', `no ${kind.replace('_', ' ')} ${id}`);
  return row.shopId;
}

/** The current shop's id and slug (what an event envelope names); 404 when there is none. */
/** The slug of the shop `shopId` (a column of the caller's query) as a scalar subquery, for reads that render an envelope. */
export function shopSlugOf(tx: Tx, shopId: Fragment): Fragment {
  return tx`(select s.slug from shops s where s.id = ${shopId})`;
}

export async function shopIdentity(tx: Tx, shopId: string): Promise<{ id: string; slug: string }> {
  const [shop] = await tx<{ id: string; slug: string }[]>`select id, slug from shops where id = ${shopId}`;
  if (!shop) throw new Problem('not-found', `no shop ${shopId}`);
  return shop;
}

/** Whether the shop locks prices: no order edit may then set a price off the list or a discount. */
export async function shopLocksPrices(tx: Tx, shopId: string): Promise<boolean> {
  const [shop] = await tx<{ lockPrices: boolean }[]>`select lock_prices from shops where id = ${shopId}`;
  return shop?.lockPrices ?? false;
}
