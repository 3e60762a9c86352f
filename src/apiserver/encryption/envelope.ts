/**
 * The envelope of an encrypted stored value:
 *
 *   conductor:enc:aes-gcm:v1:<key id>:<base64 of nonce(12) ‖ ciphertext ‖ tag(16)>
 *
 * AES-256-GCM with a random 12-byte nonce per write and the storage key as additional
 * authenticated data, so a value copied under another key fails to decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptionKey } from './key-file.js';

export const ENVELOPE_PREFIX = 'conductor:enc:aes-gcm:v1:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Why a value could not be opened: its key is not in the key set, or it failed authentication. */
export class EnvelopeError extends Error {
  constructor(
    readonly code: 'missing-key' | 'corrupt',
    readonly keyId: string,
    message: string,
  ) {
    super(message);
    this.name = 'EnvelopeError';
  }
}

/** True when `value` is an encrypted envelope (of any key). */
export function isSealed(value: string): boolean {
  return value.startsWith(ENVELOPE_PREFIX);
}

/** The key id an envelope names, or undefined for a value that is not sealed. */
export function sealedKeyId(value: string): string | undefined {
  if (!isSealed(value)) return undefined;
  const end = value.indexOf(':', ENVELOPE_PREFIX.length);
  return end < 0 ? '' : value.slice(ENVELOPE_PREFIX.length, end);
}

/** Encrypts `plaintext` under `key`, binding it to `storageKey`. */
export function seal(key: EncryptionKey, storageKey: string, plaintext: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.secret, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(storageKey, 'utf8'));
  const body = Buffer.concat([nonce, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${ENVELOPE_PREFIX}${key.id}:${body.toString('base64')}`;
}

/** Decrypts an envelope written by `seal` for `storageKey`; `keys` finds the key by id. */
export function open(value: string, storageKey: string, keys: ReadonlyMap<string, EncryptionKey>): string {
  const keyId = sealedKeyId(value);
  if (keyId === undefined) throw new EnvelopeError('corrupt', '', `the value of ${storageKey} is not an encrypted envelope`);
  const key = keys.get(keyId);
  if (!key) throw new EnvelopeError('missing-key', keyId, `the value of ${storageKey} is encrypted with key "${keyId}", which is not in the key file`);
  const body = Buffer.from(value.slice(ENVELOPE_PREFIX.length + keyId.length + 1), 'base64');
  if (body.length < NONCE_BYTES + TAG_BYTES) {
    throw new EnvelopeError('corrupt', keyId, `the value of ${storageKey} (key "${keyId}") is too short to be an encrypted envelope`);
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.secret, body.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(storageKey, 'utf8'));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(NONCE_BYTES, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new EnvelopeError('corrupt', keyId, `the value of ${storageKey} fails authentication with key "${keyId}" (corrupted, or stored under another key)`);
  }
}
