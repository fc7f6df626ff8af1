import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret } from '../../domain/kernel/sealed-secrets.js';

const key = createSecretKey(randomBytes(32));
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const flowId = randomUUID();

describe('sealed secrets (AES-256-GCM)', () => {
  it('open to the sealed text with the same key and associated data; the bytes hold no trace of it', () => {
    const sealed = sealSecret(key, secret, flowId);
    expect(openSecret(key, sealed, flowId)).toBe(secret);
    expect(sealed[0]).toBe(1);
    expect(sealed.length).toBe(1 + 12 + 16 + Buffer.byteLength(secret));
    expect(sealed.includes(Buffer.from(secret))).toBe(false);
    expect(sealed.includes(Buffer.from(secret.slice('whsec_'.length), 'base64'))).toBe(false);
    // A fresh IV each time: equal secrets do not look equal at rest.
    expect(sealSecret(key, secret, flowId).equals(sealed)).toBe(false);
  });

  it('do not open with other associated data: a value moved to another record fails', () => {
    const sealed = sealSecret(key, secret, flowId);
    expect(() => openSecret(key, sealed, randomUUID())).toThrow();
  });

  it('do not open once any byte is changed: version, IV, tag or ciphertext', () => {
    const sealed = sealSecret(key, secret, flowId);
    for (const position of [0, 1, 13, 29, sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[position]! ^= 0x01;
      expect(() => openSecret(key, tampered, flowId), `byte ${position}`).toThrow();
    }
    expect(() => openSecret(key, sealed.subarray(0, 29), flowId)).toThrow();
  });

  it('do not open with another key', () => {
    expect(() => openSecret(createSecretKey(randomBytes(32)), sealSecret(key, secret, flowId), flowId)).toThrow();
  });
});
