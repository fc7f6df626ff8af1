import { randomBytes, type KeyObject } from 'node:crypto';
import { decryptSecret, Problem, encryptSecret } from '../kernel/index.js';
import { writeShopLog } from '../access/index.js';
import type { Tx } from '../kernel/index.js';
import type { Actor } from '../access/index.js';

export const SECRET_OVERLAP_HOURS = 24;

/**
 * A new signing secret for the flow's HTTP-send block: `whsec_` + base64 of 32 random bytes (Standard
 * Webhooks, symmetric). Stored encrypted with the flow id as associated data; the plaintext is returned
 * to be shown once.
 */
export async function addSigningSecret(tx: Tx, flowId: string, shopId: string, secretsKey: KeyObject): Promise<string> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  await tx`insert into webhook_signing_secrets (flow_id, shop_id, encrypted_secret) values (${flowId}, ${shopId}, ${encryptSecret(secretsKey, secret, flowId)})`;
  return secret;
}

/** The secrets that sign a flow's deliveries now, newest first (two during a rotation's overlap), opened for signing. */
export async function liveSigningSecrets(tx: Tx, flowId: string, secretsKey: KeyObject): Promise<string[]> {
  const rows = await tx<{ encryptedSecret: Buffer }[]>`
    select encrypted_secret from webhook_signing_secrets
    where flow_id = ${flowId} and (expires_at is null or expires_at > now())
    order by created_at desc`;
  return rows.map((row) => decryptSecret(secretsKey, row.encryptedSecret, flowId));
}

/** A new secret; the current ones keep signing for 24 h beside it. Returns the new secret (shown once). */
export async function rotateSigningSecret(tx: Tx, flowId: string, actor: Actor, secretsKey: KeyObject): Promise<string> {
  const [flow] = await tx<{ shopId: string }[]>`select shop_id from flows where id = ${flowId} for update`;
  if (!flow) throw new Problem('not-found', `no flow ${flowId}`);
  await tx`
    update webhook_signing_secrets
    set expires_at = least(expires_at, now() + make_interval(hours => ${SECRET_OVERLAP_HOURS}))
    where flow_id = ${flowId} and (expires_at is null or expires_at > now())`;
  const secret = await addSigningSecret(tx, flowId, flow.shopId, secretsKey);
  await writeShopLog(tx, {
    shopId: flow.shopId,
    actorUserId: actor,
    action: 'flow.secret_rotated',
    subjectType: 'flow',
    subjectId: flowId,
  });
  return secret;
}
