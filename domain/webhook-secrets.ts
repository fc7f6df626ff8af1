import { randomBytes } from 'node:crypto';
import type { Sql } from '../db/client.js';

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks symmetric secret). */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The secrets that sign a flow's deliveries now, newest first. */
export async function liveSigningSecrets(sql: Sql, flowId: string): Promise<string[]> {
  const rows = await sql<{ secret: string }[]>`
    select secret from webhook_signing_secrets
    where flow_id = ${flowId} and (expires_at is null or expires_at > now())
    order by created_at desc`;
  return rows.map((row) => row.secret);
}

export async function addSigningSecret(sql: Sql, flowId: string, secret = generateSigningSecret()): Promise<string> {
  await sql`insert into webhook_signing_secrets (flow_id, secret) values (${flowId}, ${secret})`;
  return secret;
}
