import { randomBytes } from 'node:crypto';
import { Problem } from './problems.js';
import { writeShopLog } from './shop-log.js';
import type { Tx } from './tenancy.js';
import type { Actor } from './api-keys.js';

export const SECRET_OVERLAP_HOURS = 24;

/** A new signing secret for the flow's HTTP-send block: `whsec_` + base64 of 32 random bytes (Standard Webhooks, symmetric). */
export async function addSigningSecret(tx: Tx, flowId: string, shopId: string): Promise<string> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  await tx`insert into webhook_signing_secrets (flow_id, shop_id, secret) values (${flowId}, ${shopId}, ${secret})`;
  return secret;
}

/** The secrets that sign a flow's deliveries now, newest first (two during a rotation's overlap). */
export async function liveSigningSecrets(tx: Tx, flowId: string): Promise<string[]> {
  const rows = await tx<{ secret: string }[]>`
    select secret from webhook_signing_secrets
    where flow_id = ${flowId} and (expires_at is null or expires_at > now())
    order by created_at desc`;
  return rows.map((row) => row.secret);
}

/** A new secret; the current ones keep signing for 24 h beside it. Returns the new secret (shown once). */
export async function rotateSigningSecret(tx: Tx, flowId: string, actor: Actor): Promise<string> {
  const [flow] = await tx<{ shopId: string }[]>`select shop_id from flows where id = ${flowId} for update`;
  if (!flow) throw new Problem('not-found', `no flow ${flowId}`);
  await tx`
    update webhook_signing_secrets
    set expires_at = least(expires_at, now() + make_interval(hours => ${SECRET_OVERLAP_HOURS}))
    where flow_id = ${flowId} and (expires_at is null or expires_at > now())`;
  const secret = await addSigningSecret(tx, flowId, flow.shopId);
  await writeShopLog(tx, { shopId: flow.shopId, actorUserId: actor, action: 'flow.secret_rotated', subjectType: 'flow', subjectId: flowId });
  return secret;
}
