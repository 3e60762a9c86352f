/**
 * The canonical forms of AWS Signature Version 4 for S3 that the gateway's verifier
 * (sigv4-verify.ts) rebuilds a request from. S3 flavour: each path segment is percent-encoded
 * once (not twice as other AWS services want). Conductor signs nothing itself: its S3 client
 * (s3-admin.ts) is the AWS SDK.
 */
import { createHash } from 'node:crypto';

/** A KeyPair is an access key id and its secret. */
export interface KeyPair {
  accessKeyId: string;
  secretAccessKey: string;
}

/** sha256Hex is the hex SHA-256 of a body. */
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** encodeRfc3986 percent-encodes everything but the unreserved characters A-Z a-z 0-9 - . _ ~. */
export function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** encodePath percent-encodes each segment of a path, keeping the slashes. */
export function encodePath(path: string): string {
  return path.split('/').map(encodeRfc3986).join('/');
}

/** canonicalQuery is the query string in SigV4's canonical form (sorted, encoded). */
export function canonicalQuery(query: Record<string, string> = {}): string {
  return Object.entries(query)
    .map(([k, v]) => [encodeRfc3986(k), encodeRfc3986(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** amzDate formats a time as SigV4's basic ISO 8601 form, e.g. 20150830T123600Z. */
export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}
