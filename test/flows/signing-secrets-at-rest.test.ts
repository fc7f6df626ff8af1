import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encryptPlainSigningSecrets, signingSecretsAwaitEncryption } from '../../domain/flows/encrypt-signing-secrets.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { liveSigningSecrets, rotateSigningSecret } from '../../domain/flows/webhook-secrets.js';
import { testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';

const { db, shop } = useSuite({ shop: true });

const inTheShop = <T>(work: Parameters<typeof withShop<T>>[2]) => withShop(db.app, shop.shopId, work);
const newFlow = () => shop.newFlow({ name: 'Hooks', eventType: 'product.updated', url: 'https://hooks.example.com/x' });

/** Every stored row of the flow, as the owner reads it behind the application. */
const storedRows = (flowId: string) =>
  db.admin<{ secret: string | null; encryptedSecret: Buffer | null }[]>`select * from webhook_signing_secrets where flow_id = ${flowId}`;

function expectNoTraceOf(secret: string, rows: { encryptedSecret: Buffer | null }[]): void {
  expect(JSON.stringify(rows)).not.toContain(secret.slice('whsec_'.length));
  for (const row of rows) {
    expect(row.encryptedSecret!.includes(Buffer.from(secret))).toBe(false);
    expect(row.encryptedSecret!.includes(Buffer.from(secret.slice('whsec_'.length), 'base64'))).toBe(false);
  }
}

describe('signing secrets at rest', () => {
  it('are stored encrypted on creation and rotation: the rows hold no plaintext, the worker opens what was shown', async () => {
    const { flowId, secret } = await newFlow();
    const rotated = await inTheShop((tx) => rotateSigningSecret(tx, flowId, null, testSecretsKey));
    const rows = await storedRows(flowId);
    expect(rows).toHaveLength(2);
    expect(rows.map((row) => row.secret)).toEqual([null, null]);
    expectNoTraceOf(secret, rows);
    expectNoTraceOf(rotated, rows);
    expect(await inTheShop((tx) => liveSigningSecrets(tx, flowId, testSecretsKey))).toEqual([rotated, secret]);
  });

  it('do not open when an encrypted value is moved to another flow', async () => {
    const first = await newFlow();
    const second = await newFlow();
    await db.admin`
      update webhook_signing_secrets set encrypted_secret = (select encrypted_secret from webhook_signing_secrets where flow_id = ${first.flowId})
      where flow_id = ${second.flowId}`;
    await expect(inTheShop((tx) => liveSigningSecrets(tx, second.flowId, testSecretsKey))).rejects.toThrow();
    expect(await inTheShop((tx) => liveSigningSecrets(tx, first.flowId, testSecretsKey))).toEqual([first.secret]);
  });

  it('can no longer be written in plain text: the bootstrap validated the check of the migrated template', async () => {
    expect(await signingSecretsAwaitEncryption(db.admin)).toBe(false);
    const { flowId } = await newFlow();
    const plain = `whsec_${randomBytes(32).toString('base64')}`;
    await expect(
      inTheShop((tx) => tx`insert into webhook_signing_secrets (flow_id, shop_id, secret) values (${flowId}, ${shop.shopId}, ${plain})`),
    ).rejects.toMatchObject({
      code: '23514',
      constraint_name: 'webhook_signing_secrets_encrypted',
    });
  });

  it('left in plain text by older versions are encrypted by the bootstrap step, and then open to the same secret', async () => {
    const { flowId } = await newFlow();
    const plain = `whsec_${randomBytes(32).toString('base64')}`;
    // The state right after migration 20261122000019 on a database that had a plain secret.
    await db.admin`alter table webhook_signing_secrets drop constraint webhook_signing_secrets_encrypted`;
    await db.admin`insert into webhook_signing_secrets (flow_id, shop_id, secret, created_at) values (${flowId}, ${shop.shopId}, ${plain}, now() + interval '1 second')`;
    await db.admin`alter table webhook_signing_secrets add constraint webhook_signing_secrets_encrypted check (secret is null and encrypted_secret is not null) not valid`;
    expect(await signingSecretsAwaitEncryption(db.admin)).toBe(true);

    expect(await encryptPlainSigningSecrets(db.admin, () => testSecretsKey)).toBe(1);

    expect(await signingSecretsAwaitEncryption(db.admin)).toBe(false);
    const rows = await storedRows(flowId);
    expect(rows.map((row) => row.secret)).toEqual([null, null]);
    expectNoTraceOf(plain, rows);
    expect((await inTheShop((tx) => liveSigningSecrets(tx, flowId, testSecretsKey)))[0]).toBe(plain);
    const [table] = await db.admin<
      { forced: boolean }[]
    >`select relforcerowsecurity as forced from pg_class where oid = 'webhook_signing_secrets'::regclass`;
    expect(table).toEqual({ forced: true });
  });
});
