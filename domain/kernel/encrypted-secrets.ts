import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';

/**
 * Secrets at rest (webhook signing secrets, carrier credentials): AES-256-GCM under the
 * SECRETS_KEY of the settings. The associated data names the record the secret belongs to (a flow
 * id, a connection id), so an encrypted value copied onto another record does not open.
 *
 * Layout: version byte (1) · 12-byte random IV · 16-byte tag · ciphertext. The version byte is
 * authenticated too, so a later format can be told apart and never mistaken for this one.
 */
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

export function encryptSecret(key: KeyObject, plaintext: string, associatedData: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(authenticatedHeader(associatedData));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), ciphertext]);
}

/** The plaintext; throws when the key, the associated data or any byte differs from the encryption. */
export function decryptSecret(key: KeyObject, encrypted: Uint8Array, associatedData: string): string {
  const bytes = Buffer.from(encrypted);
  if (bytes.length < HEADER_BYTES || bytes[0] !== VERSION) throw new Error('not an encrypted secret of a known version');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(authenticatedHeader(associatedData));
  decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, HEADER_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
}

function authenticatedHeader(associatedData: string): Buffer {
  return Buffer.concat([Buffer.of(VERSION), Buffer.from(associatedData, 'utf8')]);
}
