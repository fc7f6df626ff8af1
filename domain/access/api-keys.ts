import { displayPrefix, generateApiKey, hashApiKey } from './api-key-format.js';
import { assertMayGrant } from './permissions.js';
import { Problem } from '../kernel/index.js';
import { writeShopLog } from './shop-log.js';
import type { Tx } from '../kernel/index.js';
import { memberPermissions } from './users.js';

export const MAX_LIVE_KEYS = 2;
export const DEFAULT_OVERLAP_HOURS = 24;
export const MAX_OVERLAP_HOURS = 72;

/** A key as created: the plain `key` exists only in this value, shown once. */
export interface IssuedKey {
  keyId: string;
  key: string;
  displayPrefix: string;
  expiresAt: Date | null;
}

/** A person acting in the shop, or null for a platform operator using the admin CLI. */
export type Actor = string | null;

/** The application row, locked so that concurrent key changes of one application queue up. */
async function lockApplication(tx: Tx, applicationId: string) {
  const [application] = await tx<{ id: string; shopId: string; permissions: string[] }[]>`
    select id, shop_id, permissions from applications where id = ${applicationId} and removed_at is null for update`;
  if (!application) throw new Problem('not-found', `no application ${applicationId}`);
  return application;
}

async function liveKeys(tx: Tx, applicationId: string) {
  return tx<{ id: string; expiresAt: Date | null }[]>`
    select id, expires_at from api_keys
    where application_id = ${applicationId} and revoked_at is null and (expires_at is null or expires_at > now())
    order by created_at`;
}

/** What `actor` holds in the shop: a member's permissions, or everything for an operator. */
export async function actorPermissions(tx: Tx, actor: Actor): Promise<string[] | 'operator'> {
  return actor === null ? 'operator' : memberPermissions(tx, actor);
}

/**
 * Connection applications and their keys are managed by members holding
 * `automation.connections.manage` (and operators): whichever door asks, the admin API or the CLI's
 * `--as`. Answers what the actor holds, for the granting limits that follow.
 */
export async function assertManagesConnections(tx: Tx, actor: Actor, doing: string): Promise<string[] | 'operator'> {
  const held = await actorPermissions(tx, actor);
  if (held !== 'operator' && !held.includes('automation.connections.manage'))
    throw new Problem('insufficient-permission', `${doing} needs automation.connections.manage`);
  return held;
}

/** Granting limits are re-checked whenever a person issues a key for an application. */
async function assertActorMayHold(tx: Tx, actor: Actor, permissions: string[], doing: string): Promise<void> {
  assertMayGrant(permissions, await assertManagesConnections(tx, actor, doing));
}

async function insertKey(tx: Tx, shopId: string, applicationId: string, actor: Actor): Promise<IssuedKey> {
  const key = generateApiKey();
  const [row] = await tx<{ id: string }[]>`
    insert into api_keys (shop_id, application_id, key_hash, display_prefix, created_by)
    values (${shopId}, ${applicationId}, ${hashApiKey(key)}, ${displayPrefix(key)}, ${actor})
    returning id`;
  return { keyId: row!.id, key, displayPrefix: displayPrefix(key), expiresAt: null };
}

/** A further key for the application, leaving the existing ones as they are; at most two live keys. */
export async function createKey(tx: Tx, applicationId: string, actor: Actor): Promise<IssuedKey> {
  const application = await lockApplication(tx, applicationId);
  await assertActorMayHold(tx, actor, application.permissions, 'creating an API key');
  const live = await liveKeys(tx, applicationId);
  if (live.length >= MAX_LIVE_KEYS) {
    throw new Problem('conflict', `the application already has ${MAX_LIVE_KEYS} live keys; revoke one first`);
  }
  const issued = await insertKey(tx, application.shopId, applicationId, actor);
  await writeShopLog(tx, {
    shopId: application.shopId,
    actorUserId: actor,
    action: 'api_key.created',
    subjectType: 'api_key',
    subjectId: issued.keyId,
    details: { applicationId },
  });
  return issued;
}

/**
 * A new key; the live ones keep working for `overlapHours` (0–72, default 24) and then expire.
 * Refused when that would leave more than two live keys at once.
 */
export async function rotateKey(
  tx: Tx,
  applicationId: string,
  actor: Actor,
  overlapHours = DEFAULT_OVERLAP_HOURS,
): Promise<IssuedKey & { previousKeysExpireAt: Date }> {
  if (!Number.isFinite(overlapHours) || overlapHours < 0 || overlapHours > MAX_OVERLAP_HOURS) {
    throw new Problem('validation-failed', `the overlap must be 0 to ${MAX_OVERLAP_HOURS} hours`, {
      errors: [{ path: 'overlapHours', message: 'must be between 0 and 72' }],
    });
  }
  const application = await lockApplication(tx, applicationId);
  await assertActorMayHold(tx, actor, application.permissions, 'rotating an API key');
  const live = await liveKeys(tx, applicationId);
  if (overlapHours > 0 && live.length >= MAX_LIVE_KEYS) {
    throw new Problem('conflict', `the application has ${MAX_LIVE_KEYS} live keys; revoke one, or rotate with no overlap`);
  }
  const [expiry] = await tx<{ at: Date }[]>`select now() + make_interval(secs => ${overlapHours * 3600}) as at`;
  await tx`
    update api_keys set expires_at = least(expires_at, ${expiry!.at})
    where application_id = ${applicationId} and revoked_at is null and (expires_at is null or expires_at > now())`;
  const issued = await insertKey(tx, application.shopId, applicationId, actor);
  await writeShopLog(tx, {
    shopId: application.shopId,
    actorUserId: actor,
    action: 'api_key.rotated',
    subjectType: 'api_key',
    subjectId: issued.keyId,
    details: { applicationId, overlapHours, previousKeyIds: live.map((key) => key.id) },
  });
  return { ...issued, previousKeysExpireAt: expiry!.at };
}

/** Immediate: the next request with the key gets 401 (keys are looked up on every request, never cached). */
export async function revokeKey(tx: Tx, keyId: string, actor: Actor): Promise<{ keyId: string; revokedAt: Date }> {
  await assertManagesConnections(tx, actor, 'revoking an API key');
  const [key] = await tx<{ shopId: string; applicationId: string; revokedAt: Date }[]>`
    update api_keys set revoked_at = coalesce(revoked_at, now()), revoked_by = coalesce(revoked_by, ${actor})
    where id = ${keyId}
    returning shop_id, application_id, revoked_at`;
  if (!key) throw new Problem('not-found', `no API key ${keyId}`);
  await writeShopLog(tx, {
    shopId: key.shopId,
    actorUserId: actor,
    action: 'api_key.revoked',
    subjectType: 'api_key',
    subjectId: keyId,
    details: { applicationId: key.applicationId },
  });
  return { keyId, revokedAt: key.revokedAt };
}
