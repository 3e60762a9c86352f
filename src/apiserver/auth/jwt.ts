import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type * as Jose from 'jose';

/**
 * jose (46 ES modules) is loaded by the first token signed or checked, not by every start of
 * the server: importing it took 50–100 ms of the time to ready.
 */
let joseModule: Promise<typeof Jose> | undefined;
function loadJose(): Promise<typeof Jose> {
  return (joseModule ??= import('jose'));
}

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

/** A JwtVerdict is a checked token's header and payload, or why the token was refused. */
export type JwtVerdict = { ok: true; header: JwtHeader; payload: Record<string, unknown> } | { ok: false; reason: string };

/** keyIdOf returns the key id of a public key: base64url(SHA-256 of its SPKI DER encoding). */
export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

/**
 * signJwt returns a compact ES256 JWS of payload, signed with an EC P-256 private key:
 * base64url of the header `{"alg":"ES256","kid":…}`, of the payload's JSON, and of the raw 64-byte
 * signature (jose signs; the header and payload bytes are what Conductor has always issued).
 */
export async function signJwt(payload: Record<string, unknown>, privateKey: KeyObject, kid: string): Promise<string> {
  const { CompactSign } = await loadJose();
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: JWT_ALGORITHM, kid }).sign(privateKey);
}

/**
 * verifyJwt checks a compact JWS against the public keys by key id and returns its header and
 * payload, or the reason it is refused: too long, malformed, an algorithm other than ES256 (never
 * `none` or an HMAC algorithm, which would let a public key act as a shared secret), an unknown
 * key id, a signature that does not verify, or a payload that is not a JSON object. A token
 * without a kid is tried against every key. jose parses the token and checks the signature.
 */
export async function verifyJwt(token: string, publicKeys: ReadonlyMap<string, KeyObject>): Promise<JwtVerdict> {
  if (token.length > MAX_JWT_LENGTH) return { ok: false, reason: `token is ${token.length} characters long, expected at most ${MAX_JWT_LENGTH}` };
  const parts = token.split('.').length;
  if (parts !== 3) return { ok: false, reason: `token has ${parts} dot-separated part(s), expected 3 (header.payload.signature)` };
  const { compactVerify, decodeProtectedHeader, errors: joseErrors } = await loadJose();
  let header: JwtHeader;
  try {
    const h = decodeProtectedHeader(token);
    if (typeof h.alg !== 'string') return { ok: false, reason: 'token header has no "alg" string' };
    if (h.kid !== undefined && typeof h.kid !== 'string') return { ok: false, reason: 'token header "kid" must be a string' };
    if (h.typ !== undefined && typeof h.typ !== 'string') return { ok: false, reason: 'token header "typ" must be a string' };
    header = h as JwtHeader;
  } catch (err) {
    return { ok: false, reason: `token header is not base64url-encoded JSON: ${(err as Error).message}` };
  }
  if (header.alg !== JWT_ALGORITHM) return { ok: false, reason: `token algorithm ${JSON.stringify(header.alg)} is not accepted, expected ${JWT_ALGORITHM}` };
  let candidates: KeyObject[];
  if (header.kid !== undefined) {
    const key = publicKeys.get(header.kid);
    if (!key) return { ok: false, reason: `token key id ${JSON.stringify(header.kid)} is not a known signing key` };
    candidates = [key];
  } else {
    candidates = [...publicKeys.values()];
  }
  for (const key of candidates) {
    let payload: Uint8Array;
    try {
      ({ payload } = await compactVerify(token, key, { algorithms: [JWT_ALGORITHM] }));
    } catch (err) {
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) continue;
      if (!(err instanceof joseErrors.JOSEError)) throw err;
      return { ok: false, reason: `token is malformed: ${(err as Error).message}` };
    }
    return payloadObject(header, payload);
  }
  return { ok: false, reason: 'token signature does not verify with any known signing key' };
}

function payloadObject(header: JwtHeader, bytes: Uint8Array): JwtVerdict {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, reason: 'token payload is not base64url-encoded JSON' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, reason: 'token payload is not a JSON object' };
  return { ok: true, header, payload: v as Record<string, unknown> };
}
