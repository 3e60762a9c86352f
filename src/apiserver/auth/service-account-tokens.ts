import { randomUUID, type KeyObject } from 'node:crypto';
import { keyIdOf, signJwt, verifyJwt } from './jwt.js';
import type { ServiceAccountSigningKey } from './service-account-key.js';
import { AUTHENTICATED_GROUP, type UserInfo } from './user-info.js';

/** The issuer (`iss`) of Conductor's ServiceAccount tokens unless configured otherwise. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
/** A TokenRequest without expirationSeconds gets a token valid this long (as Kubernetes). */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
/** The shortest validity a TokenRequest may ask for (10 minutes, as Kubernetes). */
export const MIN_TOKEN_EXPIRATION_SECONDS = 600;
/** The longest validity a TokenRequest may ask for (2^32 seconds, as Kubernetes). */
export const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;
/** How far a token's nbf may lie in the future (clock skew between issuer and verifier). */
export const NOT_BEFORE_LEEWAY_SECONDS = 60;

/** The group of every ServiceAccount. */
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
const SUBJECT_PREFIX = 'system:serviceaccount:';

/** serviceAccountUserName returns the user name of a ServiceAccount: system:serviceaccount:<ns>:<name>. */
export function serviceAccountUserName(namespace: string, name: string): string {
  return `${SUBJECT_PREFIX}${namespace}:${name}`;
}

/** serviceAccountUser returns who a ServiceAccount authenticates as. */
export function serviceAccountUser(namespace: string, name: string, uid: string): UserInfo {
  return {
    name: serviceAccountUserName(namespace, name),
    uid,
    groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`, AUTHENTICATED_GROUP],
  };
}

/** A NamedRef names an object and pins it by uid. */
export interface NamedRef {
  name: string;
  uid: string;
}

/** ServiceAccountClaims are the claims of a Conductor (and Kubernetes) ServiceAccount token. */
export interface ServiceAccountClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': {
    namespace: string;
    serviceaccount: NamedRef;
    /** Set when the token is bound to a Secret: it dies with that Secret. */
    secret?: NamedRef;
  };
}

/**
 * An ObjectLookup finds the uid of a live object, or undefined when it does not exist (or is
 * being deleted). The token authenticator uses it to reject tokens of deleted accounts.
 */
export type ObjectLookup = (kind: 'ServiceAccount' | 'Secret', namespace: string, name: string) => Promise<string | undefined>;

/** ServiceAccountTokensOptions configures a ServiceAccountTokens. */
export interface ServiceAccountTokensOptions {
  key: ServiceAccountSigningKey;
  /** Older public keys whose tokens are still accepted (after a key rotation). */
  extraVerificationKeys?: KeyObject[];
  /** The `iss` written into and expected from tokens. */
  issuer?: string;
  /** The audiences the API server accepts; the default audience of a TokenRequest. Default: [issuer]. */
  apiAudiences?: string[];
  lookup: ObjectLookup;
  /** The clock in milliseconds; tests move it. */
  now?: () => number;
}

/** IssueRequest is what a token is issued for. */
export interface IssueRequest {
  namespace: string;
  serviceAccount: NamedRef;
  /** Empty or missing: the API server's audiences. */
  audiences?: string[];
  /** Validity in seconds; DEFAULT_TOKEN_EXPIRATION_SECONDS when missing. */
  expirationSeconds?: number;
  boundSecret?: NamedRef;
}

/** An IssuedToken is a signed token and when it expires. */
export interface IssuedToken {
  token: string;
  audiences: string[];
  expirationSeconds: number;
  expiresAt: Date;
  claims: ServiceAccountClaims;
}

/** A TokenVerdict is the outcome of verifying a token: the user, or why it was refused. */
export type TokenVerdict = { ok: true; user: UserInfo; claims: ServiceAccountClaims } | { ok: false; reason: string };

/**
 * ServiceAccountTokens issues and verifies ServiceAccount tokens: ES256-signed JWTs with the
 * claims Kubernetes uses (iss, sub, aud, exp, iat, nbf, jti, and a `kubernetes.io` claim with
 * the namespace and the account's name and uid). A token authenticates only while its
 * signature, issuer, audience and validity window check out and the account (and the Secret it
 * is bound to, if any) still exists with the uid in the token.
 */
export class ServiceAccountTokens {
  readonly issuer: string;
  readonly apiAudiences: readonly string[];
  private readonly publicKeys: Map<string, KeyObject>;
  private readonly now: () => number;

  constructor(private readonly opts: ServiceAccountTokensOptions) {
    this.issuer = opts.issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER;
    this.apiAudiences = opts.apiAudiences?.length ? [...opts.apiAudiences] : [this.issuer];
    this.now = opts.now ?? Date.now;
    this.publicKeys = new Map([[opts.key.kid, opts.key.publicKey]]);
    for (const k of opts.extraVerificationKeys ?? []) this.publicKeys.set(keyIdOf(k), k);
  }

  /** issue signs a token for a ServiceAccount. The caller has checked that the account exists. */
  async issue(req: IssueRequest): Promise<IssuedToken> {
    const expirationSeconds = req.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
    const audiences = req.audiences?.length ? [...req.audiences] : [...this.apiAudiences];
    const iat = Math.floor(this.now() / 1000);
    const claims: ServiceAccountClaims = {
      aud: audiences,
      exp: iat + expirationSeconds,
      iat,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': {
        namespace: req.namespace,
        serviceaccount: { name: req.serviceAccount.name, uid: req.serviceAccount.uid },
        ...(req.boundSecret ? { secret: { name: req.boundSecret.name, uid: req.boundSecret.uid } } : {}),
      },
      nbf: iat,
      sub: serviceAccountUserName(req.namespace, req.serviceAccount.name),
    };
    const token = await signJwt(claims as unknown as Record<string, unknown>, this.opts.key.privateKey, this.opts.key.kid);
    return { token, audiences, expirationSeconds, expiresAt: new Date(claims.exp * 1000), claims };
  }

  /** authenticate returns the user a token stands for, or undefined when it does not verify. */
  async authenticate(token: string): Promise<UserInfo | undefined> {
    const v = await this.verify(token);
    return v.ok ? v.user : undefined;
  }

  /**
   * verify checks a token and says why it is refused: malformed, bad signature, wrong issuer or
   * audience, outside its validity window, or its account (or bound Secret) gone or replaced.
   * The signature is checked before anything is looked up.
   */
  async verify(token: string): Promise<TokenVerdict> {
    let claims: ServiceAccountClaims;
    try {
      const jwt = await verifyJwt(token, this.publicKeys);
      if (!jwt.ok) return jwt;
      claims = parseClaims(jwt.payload);
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
    if (claims.iss !== this.issuer) return { ok: false, reason: `token issuer ${JSON.stringify(claims.iss)} is not ${JSON.stringify(this.issuer)}` };
    if (!claims.aud.some((a) => this.apiAudiences.includes(a))) {
      return { ok: false, reason: `token audiences ${JSON.stringify(claims.aud)} include none of the API server's ${JSON.stringify(this.apiAudiences)}` };
    }
    const now = this.now() / 1000;
    if (now >= claims.exp) return { ok: false, reason: `token expired at ${new Date(claims.exp * 1000).toISOString()}` };
    if (claims.nbf > now + NOT_BEFORE_LEEWAY_SECONDS) return { ok: false, reason: `token is not valid before ${new Date(claims.nbf * 1000).toISOString()}` };
    const k8s = claims['kubernetes.io'];
    const ns = k8s.namespace;
    const sa = k8s.serviceaccount;
    if (claims.sub !== serviceAccountUserName(ns, sa.name)) {
      return { ok: false, reason: `token subject ${JSON.stringify(claims.sub)} does not match its kubernetes.io claim (${ns}/${sa.name})` };
    }
    const liveUid = await this.opts.lookup('ServiceAccount', ns, sa.name);
    if (liveUid === undefined) return { ok: false, reason: `service account ${ns}/${sa.name} does not exist` };
    if (liveUid !== sa.uid) return { ok: false, reason: `service account ${ns}/${sa.name} has uid ${liveUid}, the token was issued for uid ${sa.uid}` };
    if (k8s.secret) {
      const secretUid = await this.opts.lookup('Secret', ns, k8s.secret.name);
      if (secretUid === undefined) return { ok: false, reason: `secret ${ns}/${k8s.secret.name} the token is bound to does not exist` };
      if (secretUid !== k8s.secret.uid)
        return { ok: false, reason: `secret ${ns}/${k8s.secret.name} has uid ${secretUid}, the token is bound to uid ${k8s.secret.uid}` };
    }
    return { ok: true, user: serviceAccountUser(ns, sa.name, sa.uid), claims };
  }
}

/** looksLikeJwt says whether a bearer token has the shape of a compact JWS (three dot-separated parts). */
export function looksLikeJwt(token: string): boolean {
  return token.split('.').length === 3;
}

/** parseClaims checks the shape of a verified payload; it throws saying which claim is wrong. */
export function parseClaims(p: Record<string, unknown>): ServiceAccountClaims {
  const str = (v: unknown, what: string): string => {
    if (typeof v !== 'string' || v === '') throw new Error(`token claim ${what} must be a non-empty string`);
    return v;
  };
  const num = (v: unknown, what: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`token claim ${what} must be a number of seconds`);
    return v;
  };
  const obj = (v: unknown, what: string): Record<string, unknown> => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`token claim ${what} must be an object`);
    return v as Record<string, unknown>;
  };
  const ref = (v: unknown, what: string): NamedRef => {
    const o = obj(v, what);
    return { name: str(o.name, `${what}.name`), uid: str(o.uid, `${what}.uid`) };
  };
  let aud: string[];
  if (typeof p.aud === 'string') aud = [p.aud];
  else if (Array.isArray(p.aud) && p.aud.every((a) => typeof a === 'string')) aud = p.aud;
  else throw new Error('token claim aud must be a string or a list of strings');
  const k8s = obj(p['kubernetes.io'], 'kubernetes.io');
  const secret = k8s.secret === undefined ? undefined : ref(k8s.secret, 'kubernetes.io.secret');
  const iat = p.iat === undefined ? 0 : num(p.iat, 'iat');
  return {
    iss: str(p.iss, 'iss'),
    sub: str(p.sub, 'sub'),
    aud,
    exp: num(p.exp, 'exp'),
    iat,
    nbf: p.nbf === undefined ? iat : num(p.nbf, 'nbf'),
    jti: typeof p.jti === 'string' ? p.jti : '',
    'kubernetes.io': {
      namespace: str(k8s.namespace, 'kubernetes.io.namespace'),
      serviceaccount: ref(k8s.serviceaccount, 'kubernetes.io.serviceaccount'),
      ...(secret ? { secret } : {}),
    },
  };
}
