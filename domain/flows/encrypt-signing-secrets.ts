import type { KeyObject } from 'node:crypto';
import type { Sql } from '../../db/client.js';
import { encryptSecret } from '../kernel/index.js';

/**
 * Whether signing secrets still wait to be encrypted: migration 20261122000019 leaves its check
 * `webhook_signing_secrets_encrypted` unvalidated until `encryptPlainSigningSecrets` has run (one catalog
 * read, no table access).
 */
export async function signingSecretsAwaitEncryption(owner: Sql): Promise<boolean> {
  const [constraint] = await owner<{ validated: boolean }[]>`
    select convalidated as validated from pg_constraint
    where conname = 'webhook_signing_secrets_encrypted' and conrelid = 'webhook_signing_secrets'::regclass`;
  return constraint?.validated === false;
}

/**
 * Run by the bootstrap, as the owner, after the migrations: encrypts every secret left in plain text
 * (the flow id as associated data, like `addSigningSecret`), clears the plain column and validates
 * the check, all in one transaction. `secretsKey` is asked for only when a plain secret exists, so
 * fresh databases need no key. Returns how many secrets it encrypted.
 */
export async function encryptPlainSigningSecrets(owner: Sql, secretsKey: () => KeyObject): Promise<number> {
  return owner.begin(async (tx) => {
    // Row-level security is forced on the owner too, and these rows belong to every shop: lifted for
    // this transaction only (a superuser owner is not subject to it anyway).
    await tx`alter table webhook_signing_secrets no force row level security`;
    const plain = await tx<{ id: string; flowId: string; secret: string }[]>`
      select id, flow_id, secret from webhook_signing_secrets where secret is not null for update`;
    for (const row of plain) {
      await tx`update webhook_signing_secrets set encrypted_secret = ${encryptSecret(secretsKey(), row.secret, row.flowId)}, secret = null where id = ${row.id}`;
    }
    await tx`alter table webhook_signing_secrets validate constraint webhook_signing_secrets_encrypted`;
    await tx`alter table webhook_signing_secrets force row level security`;
    return plain.length;
  }) as Promise<number>;
}
