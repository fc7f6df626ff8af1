import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type DataConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

// A CommonJS module: its namespaces come off the default export.
const { Payload: ProtoPayload } = proto.temporal.api.common.v1;

/** A payload the codec encrypted: its encoding, and the id of the key that did. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

/** One AES-256-GCM key of settings `PAYLOAD_CODEC_KEYS`, with the id written beside every payload it seals. */
export interface CodecKey {
  id: string;
  key: Buffer;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const text = (value: string) => Buffer.from(value, 'utf8');
const textOf = (value: Uint8Array | null | undefined) => (value ? Buffer.from(value).toString('utf8') : undefined);

/**
 * Every payload Shopflow hands Temporal (workflow inputs and results, activity arguments, signals,
 * failure messages) is encrypted before it leaves the process, so the server, its database and the
 * Web UI hold ciphertext (docs/security.md, Workflow histories). The first key encrypts; every key
 * decrypts, so a new key is added in front and the old one kept until no history needs it. Payloads
 * recorded before the codec (no encryption metadata) pass through unchanged.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keys: readonly [CodecKey, ...CodecKey[]];

  constructor(keys: readonly [CodecKey, ...CodecKey[]]) {
    this.keys = keys;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const [current] = this.keys;
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      // The key id is authenticated too: a payload moved under another id does not open.
      cipher.setAAD(text(current.id));
      const sealed = Buffer.concat([cipher.update(ProtoPayload.encode(payload).finish()), cipher.final()]);
      return {
        metadata: { [METADATA_ENCODING_KEY]: text(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: text(current.id) },
        data: Buffer.concat([iv, sealed, cipher.getAuthTag()]),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (textOf(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return payload;
      const id = textOf(payload.metadata?.[KEY_ID_METADATA]) ?? '';
      const key = this.keys.find((candidate) => candidate.id === id);
      if (!key) throw new Error(`no payload codec key "${id}": add it to PAYLOAD_CODEC_KEYS to read this history`);
      const data = Buffer.from(payload.data ?? new Uint8Array());
      const decipher = createDecipheriv('aes-256-gcm', key.key, data.subarray(0, IV_BYTES));
      decipher.setAAD(text(id));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      return ProtoPayload.decode(plain);
    });
  }
}

/**
 * `id:base64,id:base64…` (settings `PAYLOAD_CODEC_KEYS`): each key is the base64 of 32 bytes, ids are
 * unique; the first encrypts. Throws a message that names what is wrong, never a key.
 */
export function parseCodecKeys(value: string): [CodecKey, ...CodecKey[]] {
  const keys = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry, index) => {
      const [id, material, extra] = entry.split(':');
      if (!id || !material || extra !== undefined || !/^[A-Za-z0-9._-]{1,64}$/.test(id))
        throw new Error(`key ${index + 1} is not "id:base64" (id of letters, digits, ".", "_" or "-")`);
      const key = Buffer.from(material, 'base64');
      if (key.length !== 32) throw new Error(`key "${id}" is not the base64 of 32 bytes`);
      return { id, key };
    });
  if (new Set(keys.map((key) => key.id)).size !== keys.length) throw new Error('two keys share an id');
  const [first, ...rest] = keys;
  if (!first) throw new Error('at least one key is needed');
  return [first, ...rest];
}

/** The data converter of every Temporal client and worker of Shopflow: every payload through the codec. */
export function shopflowDataConverter(keys: readonly [CodecKey, ...CodecKey[]]): DataConverter {
  return { payloadCodecs: [new AesGcmPayloadCodec(keys)] };
}

/**
 * A payload as the codec server protocol carries it (proto3 JSON: each metadata value and the data
 * base64), the shape the Temporal Web UI and CLI send to `/decode` and `/encode`.
 */
export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

export function payloadOfJson(json: JsonPayload): Payload {
  return ProtoPayload.fromObject(json);
}

export function jsonOfPayload(payload: Payload): JsonPayload {
  return ProtoPayload.toObject(ProtoPayload.create(payload), { bytes: String }) as JsonPayload;
}
