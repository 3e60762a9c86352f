/**
 * Encryption at rest: the key file, the value envelope, the encrypting Store wrapper and
 * storage migration (re-encryption, key usage).
 */
export { EncryptingStore, SECRETS_PREFIX, type EncryptingStoreOptions } from './encrypting-store.js';
export { ENVELOPE_PREFIX, EnvelopeError, isSealed, open, seal, sealedKeyId } from './envelope.js';
export {
  ensureKeySet,
  formatKeySet,
  keyFilePath,
  KEY_BYTES,
  newKey,
  parseKeySet,
  readKeySet,
  rotated,
  writeKeySet,
  type EncryptionKey,
  type KeySet,
} from './key-file.js';
export { keyUsage, PLAINTEXT, reencryptAll, withRevision, type ReencryptResult } from './migration.js';
