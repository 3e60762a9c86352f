/**
 * A claim's bucket name: deterministic, so a repeated bind after a crash finds the bucket an
 * earlier bind created, and valid under S3's bucket naming rules.
 */
import { createHash } from 'node:crypto';
import { claimShareName } from '../../share-names.js';

const maxBucketNameLength = 63;
const hashLength = 8;

/**
 * bucketName is the bucket of a new claim `namespace/name`: `<namespace>-<name>-<16 hex>`,
 * lower case, every run of characters outside `[a-z0-9]` turned into one `-`, the readable
 * part cut so the whole has at most 63 characters. The hash (64 bits of the exact,
 * length-prefixed parts; providers/share-names.ts) keeps claims apart whose readable parts
 * agree. The result starts with a letter or digit, ends with a hex digit, has no dots (so it
 * is never IP-shaped and works with TLS wildcard certificates) and no `--` (so never `xn--…`).
 */
export function bucketName(namespace: string, name: string): string {
  return claimShareName({ namespace, name }, maxBucketNameLength, 'label');
}

/**
 * legacyBucketName is the bucket earlier versions gave the claim (an 8-hex hash of
 * `namespace/name`): kept for claims bound then, recognised only from their records.
 */
export function legacyBucketName(namespace: string, name: string): string {
  const hash = createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, hashLength);
  let readable = `${namespace}-${name}`.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  readable = readable.slice(0, maxBucketNameLength - hashLength - 1).replace(/^-+|-+$/g, '');
  return readable ? `${readable}-${hash}` : `claim-${hash}`;
}

/** bucketNameProblem says why a bucket name breaks S3's rules, or returns undefined. */
export function bucketNameProblem(bucket: string): string | undefined {
  if (bucket.length < 3 || bucket.length > 63) return `bucket name "${bucket}" has ${bucket.length} characters: want 3 to 63`;
  if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(bucket)) {
    return `bucket name "${bucket}" is not valid: want lower-case letters, digits, dots and hyphens, beginning and ending with a letter or digit`;
  }
  if (bucket.includes('..')) return `bucket name "${bucket}" has two adjacent dots`;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(bucket)) return `bucket name "${bucket}" looks like an IP address`;
  if (bucket.startsWith('xn--') || bucket.endsWith('-s3alias')) return `bucket name "${bucket}" uses a reserved prefix or suffix`;
  return undefined;
}
