import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** The only signature algorithm Conductor issues and accepts (ECDSA P-256 with SHA-256). */
export const JWT_ALGORITHM = 'ES256';
/** Tokens longer than this are rejected before any decoding (no real token comes close). */
export const MAX_JWT_LENGTH = 16 * 1024;

/** A JwtHeader is the protected header of a compact JWS. */
export interface JwtHeader {
  alg: string;
  kid?: string;
  typ?: string;
}

/** A DecodedJwt is a compact JWS split into its parts, its signature not yet checked. */
export interface DecodedJwt {
  header: JwtHeader;
  payload: Record<string, unknown>;
  /** `base64url(header).base64url(payload)`: the bytes the signature covers. */
  signingInput: string;
  signature: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/** keyIdOf returns the key id of a public key: base64url(SHA-256 of its SPKI DER encoding). */
export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('base64url');
}

/** signJwt returns a compact ES256 JWS of payload, signed with an EC P-256 private key. */
export function signJwt(payload: Record<string, unknown>, privateKey: KeyObject, kid: string): string {
  const header: JwtHeader = { alg: JWT_ALGORITHM, kid };
  const signingInput = `${b64json(header)}.${b64json(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput, 'ascii'), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

/**
 * decodeJwt splits a compact JWS into header, payload and signature without checking the
 * signature. It throws an Error saying what is malformed: not three base64url parts, a header or
 * payload that is not a JSON object, a header without an algorithm.
 */
export function decodeJwt(token: string): DecodedJwt {
  if (token.length > MAX_JWT_LENGTH) throw new Error(`token is ${token.length} characters long, expected at most ${MAX_JWT_LENGTH}`);
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error(`token has ${parts.length} dot-separated part(s), expected 3 (header.payload.signature)`);
  const [h, p, s] = parts as [string, string, string];
  if (!B64URL.test(h) || !B64URL.test(p) || !B64URL.test(s) || h === '' || p === '' || s === '') {
    throw new Error('token parts must be non-empty base64url text');
  }
  const header = jsonObject(h, 'header');
  if (typeof header.alg !== 'string') throw new Error('token header has no "alg" string');
  if (header.kid !== undefined && typeof header.kid !== 'string') throw new Error('token header "kid" must be a string');
  if (header.typ !== undefined && typeof header.typ !== 'string') throw new Error('token header "typ" must be a string');
  return {
    header: header as unknown as JwtHeader,
    payload: jsonObject(p, 'payload'),
    signingInput: `${h}.${p}`,
    signature: Buffer.from(s, 'base64url'),
  };
}

/**
 * verifyJwtSignature checks a decoded token's signature against the public keys by key id.
 * Only ES256 is accepted (never `none` or an HMAC algorithm, which would let a public key act as
 * a shared secret). A token without a kid is tried against every key. It returns a reason when
 * the signature does not verify, undefined when it does.
 */
export function verifyJwtSignature(jwt: DecodedJwt, publicKeys: ReadonlyMap<string, KeyObject>): string | undefined {
  if (jwt.header.alg !== JWT_ALGORITHM) return `token algorithm ${JSON.stringify(jwt.header.alg)} is not accepted, expected ${JWT_ALGORITHM}`;
  if (jwt.signature.length !== 64) return `token signature is ${jwt.signature.length} bytes, expected 64 for ${JWT_ALGORITHM}`;
  let candidates: KeyObject[];
  if (jwt.header.kid !== undefined) {
    const key = publicKeys.get(jwt.header.kid);
    if (!key) return `token key id ${JSON.stringify(jwt.header.kid)} is not a known signing key`;
    candidates = [key];
  } else {
    candidates = [...publicKeys.values()];
  }
  const data = Buffer.from(jwt.signingInput, 'ascii');
  for (const key of candidates) {
    if (verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, jwt.signature)) return undefined;
  }
  return 'token signature does not verify with any known signing key';
}

function b64json(v: unknown): string {
  return Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');
}

function jsonObject(part: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new Error(`token ${what} is not base64url-encoded JSON`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`token ${what} is not a JSON object`);
  return v as Record<string, unknown>;
}
