/**
 * AWS Signature Version 4 for S3 requests: what the small S3 client in s3-admin.ts signs its
 * requests with. S3 flavour: each path segment is percent-encoded once (not twice as other
 * AWS services want), and the caller passes the payload hash it also sends as
 * `x-amz-content-sha256`.
 */
import { createHash, createHmac } from 'node:crypto';

/** A KeyPair is an access key id and its secret. */
export interface KeyPair {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A RequestToSign is everything of an HTTP request that its signature covers. */
export interface RequestToSign {
  method: string;
  /** The path, not yet percent-encoded (e.g. `/my-bucket/a key.txt`). */
  path: string;
  query?: Record<string, string>;
  /** Every header to sign; must include `host`. */
  headers: Record<string, string>;
  /** The hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`. */
  payloadHash: string;
}

/** A SigningScope says whose key signs and for which region, service and time. */
export interface SigningScope {
  credentials: KeyPair;
  region: string;
  service: string;
  now: Date;
}

/** sha256Hex is the hex SHA-256 of a body. */
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
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
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/**
 * signRequest returns the headers that sign the request: `x-amz-date` and `authorization`.
 * The request's own headers are signed as given (names lower-cased, values trimmed and their
 * inner runs of spaces collapsed), together with `x-amz-date`.
 */
export function signRequest(request: RequestToSign, scope: SigningScope): { 'x-amz-date': string; authorization: string } {
  const date = amzDate(scope.now);
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(request.headers)) headers.set(name.toLowerCase(), value.trim().replace(/ +/g, ' '));
  if (!headers.has('host')) throw new Error('cannot sign a request without a host header: want the header the request is sent with');
  headers.set('x-amz-date', date);
  const names = [...headers.keys()].sort();
  const canonicalHeaders = names.map((n) => `${n}:${headers.get(n)}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method.toUpperCase(),
    encodePath(request.path),
    canonicalQuery(request.query),
    canonicalHeaders,
    signedHeaders,
    request.payloadHash,
  ].join('\n');
  const day = date.slice(0, 8);
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${scope.credentials.secretAccessKey}`, day), scope.region), scope.service), 'aws4_request');
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  return {
    'x-amz-date': date,
    authorization: `AWS4-HMAC-SHA256 Credential=${scope.credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}
