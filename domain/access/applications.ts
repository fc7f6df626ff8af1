import { randomUUID } from 'node:crypto';
import { assertManagesConnections, createKey, type Actor, type IssuedKey } from './api-keys.js';
import { CHAT_PERMISSIONS, assertMayGrant } from './permissions.js';
import { characterCount, Problem, refuseAbsent } from '../kernel/index.js';
import { writeShopLog } from './shop-log.js';
import type { Tx } from '../kernel/index.js';

export const MAX_APPLICATIONS_PER_SHOP = 10;

export interface ApplicationInput {
  name: string;
  permissions: string[];
  /** Chat pages: `all` the granting person sees, or a list of page ids. Ignored without a chat permission. */
  pages?: 'all' | string[];
}

/** Pages the granting person sees: all of the shop's pages when they may read pages (operators too). */
async function resolvePages(tx: Tx, input: ApplicationInput, granter: string[] | 'operator'): Promise<string[]> {
  if (!input.permissions.some((permission) => CHAT_PERMISSIONS.includes(permission))) return [];
  const visible =
    granter === 'operator' || granter.includes('social.pages.read')
      ? (await tx<{ id: string }[]>`select id from pages order by created_at`).map((page) => page.id)
      : [];
  if (input.pages === undefined || input.pages === 'all') return visible;
  // A page the granting person does not see is as absent to them as one of another shop: detail only.
  refuseAbsent(
    input.pages.flatMap((id, index) =>
      visible.includes(id) ? [] : [{ path: `pages.${index}`, noun: 'page visible to the granting person', id }],
    ),
  );
  return [...new Set(input.pages)];
}

/** A connection application (at most 10 per shop) with its first key. */
export async function createApplication(
  tx: Tx,
  shopId: string,
  input: ApplicationInput,
  actor: Actor,
): Promise<{ applicationId: string } & IssuedKey> {
  const name = input.name.trim();
  if (name.length < 1 || characterCount(name) > 255)
    throw new Problem('validation-failed', 'the name must be 1 to 255 characters', {
      errors: [{ path: 'name', message: 'must be 1 to 255 characters' }],
    });
  const granter = await assertManagesConnections(tx, actor, 'creating a connection application');
  assertMayGrant(input.permissions, granter);
  // The shop row lock serialises creations, so the limit holds under concurrency.
  await tx`select id from shops where id = ${shopId} for update`;
  const [{ count } = { count: 0 }] = await tx<
    { count: number }[]
  >`select count(*)::int as count from applications where removed_at is null`;
  if (count >= MAX_APPLICATIONS_PER_SHOP)
    throw new Problem('conflict', `a shop has at most ${MAX_APPLICATIONS_PER_SHOP} connection applications`);
  const pageIds = await resolvePages(tx, input, granter);
  const applicationId = randomUUID();
  const permissions = [...new Set(input.permissions)].sort();
  await tx`
    insert into applications (id, shop_id, name, permissions, page_ids, created_by)
    values (${applicationId}, ${shopId}, ${name}, ${permissions}, ${pageIds}, ${actor})`;
  await writeShopLog(tx, {
    shopId,
    actorUserId: actor,
    action: 'application.created',
    subjectType: 'application',
    subjectId: applicationId,
    details: { name, permissions, pageIds },
  });
  const key = await createKey(tx, applicationId, actor);
  return { applicationId, ...key };
}

/** Permission or page edits, under the same granting limits as creation. */
export async function updateApplication(tx: Tx, applicationId: string, changes: Partial<ApplicationInput>, actor: Actor): Promise<void> {
  const granter = await assertManagesConnections(tx, actor, 'changing a connection application');
  const [current] = await tx<{ shopId: string; name: string; permissions: string[]; pageIds: string[] }[]>`
    select shop_id, name, permissions, page_ids from applications where id = ${applicationId} and removed_at is null for update`;
  if (!current) throw new Problem('not-found', `no application ${applicationId}`);
  const next: ApplicationInput = {
    name: changes.name ?? current.name,
    permissions: changes.permissions ?? current.permissions,
    pages: changes.pages ?? current.pageIds,
  };
  assertMayGrant(next.permissions, granter);
  const pageIds = await resolvePages(tx, next, granter);
  await tx`
    update applications set name = ${next.name}, permissions = ${[...new Set(next.permissions)].sort()}, page_ids = ${pageIds}, updated_at = now()
    where id = ${applicationId}`;
  await writeShopLog(tx, {
    shopId: current.shopId,
    actorUserId: actor,
    action: 'application.updated',
    subjectType: 'application',
    subjectId: applicationId,
    details: { permissions: next.permissions, pageIds },
  });
}

/**
 * Removes an application: its keys are revoked at once and it is listed no more, but its row stays,
 * so the shop log and order notes that name it keep doing so.
 */
export async function removeApplication(tx: Tx, applicationId: string, actor: Actor): Promise<void> {
  await assertManagesConnections(tx, actor, 'removing a connection application');
  const [removed] = await tx<{ shopId: string; name: string }[]>`
    update applications set removed_at = now(), updated_at = now()
    where id = ${applicationId} and removed_at is null
    returning shop_id, name`;
  if (!removed) throw new Problem('not-found', `no application ${applicationId}`);
  const revoked = await tx<{ id: string }[]>`
    update api_keys set revoked_at = now(), revoked_by = ${actor}
    where application_id = ${applicationId} and revoked_at is null
    returning id`;
  await writeShopLog(tx, {
    shopId: removed.shopId,
    actorUserId: actor,
    action: 'application.removed',
    subjectType: 'application',
    subjectId: applicationId,
    details: { name: removed.name, revokedKeyIds: revoked.map((key) => key.id) },
  });
}
