import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret } from '../../domain/kernel/encrypted-secrets.js';

const key = createSecretKey(randomBytes(32));
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const flowId = randomUUID();

describe('encrypted secrets (AES-256-GCM)', () => {
  it('decrypt to the plain text with the same key and associated data; the bytes hold no trace of it', () => {
    const encrypted = encryptSecret(key, secret, flowId);
    expect(decryptSecret(key, encrypted, flowId)).toBe(secret);
    expect(encrypted[0]).toBe(1);
    expect(encrypted.length).toBe(1 + 12 + 16 + Buffer.byteLength(secret));
    expect(encrypted.includes(Buffer.from(secret))).toBe(false);
    expect(encrypted.includes(Buffer.from(secret.slice('whsec_'.length), 'base64'))).toBe(false);
    // A fresh IV each time: equal secrets do not look equal at rest.
    expect(encryptSecret(key, secret, flowId).equals(encrypted)).toBe(false);
  });

  it('do not open with other associated data: a value moved to another record fails', () => {
    const encrypted = encryptSecret(key, secret, flowId);
    expect(() => decryptSecret(key, encrypted, randomUUID())).toThrow();
  });

  it('do not open once any byte is changed: version, IV, tag or ciphertext', () => {
    const encrypted = encryptSecret(key, secret, flowId);
    for (const position of [0, 1, 13, 29, encrypted.length - 1]) {
      const tampered = Buffer.from(encrypted);
      tampered[position]! ^= 0x01;
      expect(() => decryptSecret(key, tampered, flowId), `byte ${position}`).toThrow();
    }
    expect(() => decryptSecret(key, encrypted.subarray(0, 29), flowId)).toThrow();
  });

  it('do not open with another key', () => {
    expect(() => decryptSecret(createSecretKey(randomBytes(32)), encryptSecret(key, secret, flowId), flowId)).toThrow();
  });
});
