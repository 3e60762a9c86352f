/**
 * The keys of one S3 server (`keys.json` in its directory, mode 0600, written atomically):
 * Conductor's own key, which may touch every bucket, and one key per bound claim, limited to
 * the claim's bucket. The gateway in front of s3rver (s3-gateway-main.ts) reads the file
 * again whenever it changes; the supervisor writes it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { KeyPair } from './sigv4.js';

/** A ClaimKey is a claim's key pair and the one bucket it may use. */
export interface ClaimKey {
  secretAccessKey: string;
  bucket: string;
  /** The claim, as namespace/name, for people reading the file. */
  claim: string;
}

/** S3Keys is the content of keys.json. */
export interface S3Keys {
  admin: KeyPair;
  /** Claim keys by access key id. */
  claims: Record<string, ClaimKey>;
}

/** newS3Keys makes a file with a fresh random admin key and no claim keys. */
export function newS3Keys(): S3Keys {
  return {
    admin: { accessKeyId: `CONDUCTOR${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(30).toString('base64url') },
    claims: {},
  };
}

/**
 * claimKeyPair derives a claim's key pair from the admin secret and the claim's namespace
 * and name (which also name its bucket): the same claim gets the same keys again (a bind
 * after a restart, a key removed by hand), another claim different ones. A Delete release
 * removes the key with the bucket.
 */
export function claimKeyPair(adminSecret: string, claim: { namespace: string; name: string }): KeyPair {
  const mac = (what: string) => createHmac('sha256', `conductor s3 claim key\0${adminSecret}`).update(`${what}\0${claim.namespace}/${claim.name}`).digest();
  return {
    accessKeyId: `CLAIM${mac('id').toString('hex').slice(0, 15).toUpperCase()}`,
    secretAccessKey: mac('secret').toString('base64url').slice(0, 40),
  };
}

/** parseS3Keys reads keys.json's text; it throws saying what is wrong. */
export function parseS3Keys(text: string): S3Keys {
  const raw = JSON.parse(text) as Partial<S3Keys>;
  const admin = raw.admin;
  if (!admin || typeof admin.accessKeyId !== 'string' || typeof admin.secretAccessKey !== 'string' || !admin.accessKeyId || !admin.secretAccessKey) {
    throw new Error('keys.json lacks admin.accessKeyId and admin.secretAccessKey');
  }
  const claims: Record<string, ClaimKey> = {};
  for (const [id, key] of Object.entries(raw.claims ?? {})) {
    if (typeof key?.secretAccessKey === 'string' && typeof key.bucket === 'string' && key.secretAccessKey && key.bucket) {
      claims[id] = { secretAccessKey: key.secretAccessKey, bucket: key.bucket, claim: String(key.claim ?? '') };
    }
  }
  return { admin: { accessKeyId: admin.accessKeyId, secretAccessKey: admin.secretAccessKey }, claims };
}
