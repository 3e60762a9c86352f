/**
 * Checking AWS Signature Version 4 on an incoming S3 request (header form: an
 * `Authorization: AWS4-HMAC-SHA256 …` header), and deciding what a key may touch. Used by the
 * S3 gateway (s3-gateway-main.ts) in front of s3rver, which itself checks no signature and
 * knows no per-bucket permissions.
 *
 * The canonical request is rebuilt from what arrived: the path as sent, each segment
 * normalised to RFC 3986 encoding (as the AWS SDKs sign it), the query sorted and encoded,
 * the signed headers' values trimmed, and the payload hash from `x-amz-content-sha256`.
 * Presigned (query) requests are refused: the connection details do not offer them.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { amzDate, canonicalQuery, encodePath, sha256Hex } from './sigv4.js';

/** An IncomingS3Request is what verification reads of an HTTP request. */
export interface IncomingS3Request {
  method: string;
  /** The request target as sent: path and query, percent-encoded. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A Verdict is an accepted key or an S3 error code with a message. */
export type Verdict =
  | { ok: true; accessKeyId: string }
  | { ok: false; code: 'AccessDenied' | 'InvalidAccessKeyId' | 'SignatureDoesNotMatch' | 'RequestTimeTooSkewed'; message: string };

/** How far a request's x-amz-date may be from now. */
export const maxClockSkewMs = 15 * 60 * 1000;

function header(req: IncomingS3Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** splitTarget splits a request target into its decoded path and its decoded query. */
export function splitTarget(url: string): { path: string; query: Record<string, string> } | undefined {
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const path = safeDecode(rawPath);
  if (path === undefined || !path.startsWith('/')) return undefined;
  const query: Record<string, string> = {};
  if (q >= 0) {
    for (const part of url.slice(q + 1).split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const k = safeDecode(eq < 0 ? part : part.slice(0, eq));
      const v = safeDecode(eq < 0 ? '' : part.slice(eq + 1));
      if (k === undefined || v === undefined) return undefined;
      query[k] = v;
    }
  }
  return { path, query };
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;

/**
 * verifySigV4 checks a request's signature against the secret `secretOf` gives for its
 * access key id (undefined: no such key), at time `now`.
 */
export function verifySigV4(req: IncomingS3Request, secretOf: (accessKeyId: string) => string | undefined, now: Date = new Date()): Verdict {
  const target = splitTarget(req.url);
  if (!target) return { ok: false, code: 'AccessDenied', message: 'the request path or query is not valid percent-encoding' };
  if ('X-Amz-Signature' in target.query || 'X-Amz-Credential' in target.query || 'Signature' in target.query) {
    return { ok: false, code: 'AccessDenied', message: 'presigned URLs are not accepted by this server: sign requests with an Authorization header' };
  }
  const authorization = header(req, 'authorization');
  if (!authorization) return { ok: false, code: 'AccessDenied', message: 'anonymous requests are not accepted: sign requests with AWS Signature Version 4' };
  const m = AUTH.exec(authorization.trim());
  if (!m) return { ok: false, code: 'AccessDenied', message: 'only AWS Signature Version 4 (AWS4-HMAC-SHA256 in the Authorization header) is accepted' };
  const [, accessKeyId, day, region, service, signedHeaderList, signature] = m as unknown as [string, string, string, string, string, string, string];
  const secret = secretOf(accessKeyId);
  if (secret === undefined) return { ok: false, code: 'InvalidAccessKeyId', message: 'the access key id does not exist on this server' };
  if (service !== 's3') return { ok: false, code: 'SignatureDoesNotMatch', message: `the credential scope names service "${service}": want s3` };
  const date = header(req, 'x-amz-date');
  if (!date || !/^\d{8}T\d{6}Z$/.test(date) || date.slice(0, 8) !== day) {
    return { ok: false, code: 'AccessDenied', message: 'x-amz-date is missing or does not match the credential scope date' };
  }
  const when = Date.UTC(
    Number(date.slice(0, 4)),
    Number(date.slice(4, 6)) - 1,
    Number(date.slice(6, 8)),
    Number(date.slice(9, 11)),
    Number(date.slice(11, 13)),
    Number(date.slice(13, 15)),
  );
  if (Math.abs(now.getTime() - when) > maxClockSkewMs) {
    return { ok: false, code: 'RequestTimeTooSkewed', message: `the request time ${date} is more than 15 minutes from the server time ${amzDate(now)}` };
  }
  const names = signedHeaderList.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date') || [...names].sort().join(';') !== signedHeaderList) {
    return { ok: false, code: 'AccessDenied', message: 'SignedHeaders must be sorted and include host and x-amz-date' };
  }
  const payloadHash = header(req, 'x-amz-content-sha256');
  if (!payloadHash || !names.includes('x-amz-content-sha256')) {
    return { ok: false, code: 'AccessDenied', message: 'x-amz-content-sha256 must be sent and signed' };
  }
  const canonicalHeaders = names.map((n) => `${n}:${(header(req, n) ?? '').trim().replace(/ +/g, ' ')}\n`).join('');
  const canonicalRequest = [
    req.method.toUpperCase(),
    encodePath(target.path),
    canonicalQuery(target.query),
    canonicalHeaders,
    signedHeaderList,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
  const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest();
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, code: 'SignatureDoesNotMatch', message: 'the request signature does not match: check the secret access key and the signing method' };
  }
  return { ok: true, accessKeyId };
}

/** A Grant is what a key may touch: every bucket (Conductor's own key) or one bucket's objects. */
export type Grant = { all: true } | { bucket: string };

/**
 * pathSegments decodes each `/`-separated segment of a raw path (or copy source) separately,
 * as s3rver's router does; undefined when one is not valid percent-encoding or would walk
 * out of its directory (`.`, `..`, also spelled with encoded slashes): s3rver joins bucket
 * and key onto its data directory.
 */
export function pathSegments(raw: string): string[] | undefined {
  const segments: string[] = [];
  for (const part of raw.split('/')) {
    const decoded = safeDecode(part);
    if (decoded === undefined) return undefined;
    if (decoded.split(/[/\\]/).some((p) => p === '.' || p === '..')) return undefined;
    segments.push(decoded);
  }
  return segments;
}

/**
 * authorize says whether a verified key may make this request: a claim's key may use its
 * bucket's objects and list and inspect the bucket — not list every bucket, create or delete
 * buckets, nor copy from another bucket (x-amz-copy-source). No key may use `.` or `..`
 * path segments.
 */
export function authorize(req: IncomingS3Request, grant: Grant): { ok: true } | { ok: false; message: string } {
  const q = req.url.indexOf('?');
  const segments = pathSegments(q < 0 ? req.url : req.url.slice(0, q));
  const target = splitTarget(req.url);
  if (!segments || !target || segments[0] !== '') return { ok: false, message: 'the request path is not valid percent-encoding or has . or .. segments' };
  const copySource = header(req, 'x-amz-copy-source');
  const sourceSegments = copySource === undefined ? undefined : pathSegments(copySource.split('?')[0].replace(/^\//, ''));
  if (copySource !== undefined && !sourceSegments) return { ok: false, message: 'x-amz-copy-source is not valid percent-encoding or has . or .. segments' };
  if ('all' in grant) return { ok: true };
  const bucket = segments[1] ?? '';
  const rest = segments.slice(2);
  if (bucket !== grant.bucket) {
    return {
      ok: false,
      message: bucket === '' ? 'this key may not list the buckets: it is limited to its own bucket' : `this key is limited to bucket ${grant.bucket}`,
    };
  }
  const onBucket = rest.length === 0 || (rest.length === 1 && rest[0] === '');
  const method = req.method.toUpperCase();
  if (onBucket && Object.keys(target.query).length === 0 && (method === 'PUT' || method === 'DELETE')) {
    return { ok: false, message: `this key may not ${method === 'PUT' ? 'create' : 'delete'} buckets` };
  }
  if (sourceSegments && sourceSegments[0] !== grant.bucket) return { ok: false, message: `this key may copy only from bucket ${grant.bucket}` };
  return { ok: true };
}
