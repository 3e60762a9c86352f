import { hash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { looksLikeJwt, type ServiceAccountTokens } from './service-account-tokens.js';
import { parseTokenFile } from './token-file.js';
import { AUTHENTICATED_GROUP, withAuthenticatedGroup, type UserInfo } from './user-info.js';

/**
 * A PeerCertificate is the part of node:tls's `getPeerCertificate()` the authenticator reads.
 * Node gives a repeated attribute (two O values) as an array.
 */
export interface PeerCertificate {
  subject?: { CN?: string | string[]; O?: string | string[] };
}

/** AuthenticatorOptions says which credentials an Authenticator accepts. */
export interface AuthenticatorOptions {
  /** Static bearer tokens (the admin token); they win over the token file. */
  tokens: Map<string, UserInfo>;
  /** A Kubernetes-style static token file (CSV `token,user,uid,"group1,group2"`), read once. */
  tokenFile?: string;
  /** Verifies ServiceAccount tokens (JWTs) that are not static tokens. */
  serviceAccountTokens?: ServiceAccountTokens;
}

interface TokenEntry {
  digest: Buffer;
  user: UserInfo;
}

/**
 * An Authenticator does request authentication the way the Kubernetes API server does with
 * client certificates and static tokens: a client certificate that TLS verified against the CA
 * is tried first (user = CN, groups = O values), then an `Authorization: Bearer` token. Every
 * authenticated user is in system:authenticated. It answers undefined when neither works; the
 * server then replies 401.
 */
export class Authenticator {
  private readonly entries: TokenEntry[];
  private readonly serviceAccountTokens: ServiceAccountTokens | undefined;
  /** Per connection: the last Authorization header a static token accepted, and its user. */
  private readonly lastAccepted = new WeakMap<object, { header: string; user: UserInfo }>();

  constructor(opts: AuthenticatorOptions) {
    this.serviceAccountTokens = opts.serviceAccountTokens;
    const byToken = new Map<string, UserInfo>();
    if (opts.tokenFile !== undefined) {
      let text: string;
      try {
        text = readFileSync(opts.tokenFile, 'utf8');
      } catch (err) {
        throw new Error(`cannot read token file ${opts.tokenFile}: ${(err as Error).message}`, { cause: err });
      }
      for (const [token, user] of parseTokenFile(text, `token file ${opts.tokenFile}`)) byToken.set(token, user);
    }
    for (const [token, user] of opts.tokens) {
      if (token === '') throw new Error(`cannot use an empty static token for user ${user.name}, expected a non-empty token`);
      byToken.set(token, user);
    }
    // Only digests are kept: comparing fixed-length digests in constant time reveals nothing
    // about a token's length or prefix.
    this.entries = [...byToken].map(([token, user]) => ({ digest: sha256(token), user: withAuthenticatedGroup(user) }));
  }

  /** size is how many tokens the authenticator accepts. */
  get size(): number {
    return this.entries.length;
  }

  /**
   * authenticate returns the user behind a request, from its Authorization header and its TLS
   * peer certificate; peerVerified says whether TLS verified that certificate against the CA
   * (an unverified certificate is ignored).
   */
  authenticate(authorizationHeader: string | undefined, peerCert: PeerCertificate | undefined, peerVerified: boolean): UserInfo | undefined {
    return (peerVerified ? userFromCertificate(peerCert) : undefined) ?? this.fromHeader(authorizationHeader, undefined);
  }

  /**
   * authenticateRequest is authenticate for a request that arrived over node:https. A
   * connection's last accepted Authorization header is remembered with its user: the next
   * request on that connection with the very same header skips the token's digest and the pass
   * over every entry (static tokens never change while the server runs). Only a header the same
   * connection sent before is compared with it, so the comparison reveals nothing to anyone else.
   */
  authenticateRequest(req: IncomingMessage): UserInfo | undefined {
    const socket = req.socket as Partial<TLSSocket>;
    const verified = socket.authorized === true;
    const cert = verified && typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
    return (verified ? userFromCertificate(cert) : undefined) ?? this.fromHeader(req.headers.authorization, socket);
  }

  /**
   * fromHeader is the user of a static bearer token in `header` (a copy: callers may change it).
   * With a `connection`, the header it last had accepted is remembered (see authenticateRequest).
   */
  private fromHeader(header: string | undefined, connection: object | undefined): UserInfo | undefined {
    if (header === undefined) return undefined;
    const last = connection && this.lastAccepted.get(connection);
    if (last !== undefined && last.header === header) return withAuthenticatedGroup(last.user);
    const token = bearerToken(header);
    const user = token === undefined ? undefined : this.find(token);
    if (user === undefined) return undefined;
    if (connection) this.lastAccepted.set(connection, { header, user });
    return withAuthenticatedGroup(user);
  }

  /**
   * authenticateRequestAsync is authenticateRequest that also accepts ServiceAccount tokens: a
   * bearer token that is no static token and has the shape of a JWT is verified (which looks the
   * account up in the store, hence async).
   */
  async authenticateRequestAsync(req: IncomingMessage): Promise<UserInfo | undefined> {
    const user = this.authenticateRequest(req);
    if (user || !this.serviceAccountTokens) return user;
    const token = bearerToken(req.headers.authorization);
    if (token === undefined || !looksLikeJwt(token)) return undefined;
    return this.serviceAccountTokens.authenticate(token);
  }

  /** find returns the entry's own user (callers copy it) for a static token. */
  private find(token: string): UserInfo | undefined {
    const digest = sha256(token);
    let found: UserInfo | undefined;
    // Every entry is compared, so the time taken does not depend on which one matches.
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, digest) && found === undefined) found = entry.user;
    }
    return found;
  }
}

/**
 * bearerToken extracts the token from an `Authorization: Bearer <token>` header. The scheme is
 * case-insensitive and separated from the token by one space; anything else (another scheme,
 * an empty token, extra words) is malformed and yields undefined.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parts = header.trim().split(' ');
  if (parts.length !== 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  const token = parts[1];
  if (token === '' || /\s/.test(token)) return undefined;
  return token;
}

/**
 * userFromCertificate maps a verified client certificate to a user: name = CN (the last one if
 * several), groups = the O values plus system:authenticated. A certificate without a CN
 * authenticates nobody.
 */
export function userFromCertificate(cert: PeerCertificate | undefined): UserInfo | undefined {
  const cn = asList(cert?.subject?.CN).at(-1);
  if (!cn) return undefined;
  const groups = asList(cert?.subject?.O).filter((o) => o !== '');
  if (!groups.includes(AUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  return { name: cn, groups };
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? [...v] : [v];
}

/** sha256 is the token's digest, by Node's one-shot hash (no Hash object per request, a few µs each). */
function sha256(s: string): Buffer {
  return hash('sha256', s, 'buffer');
}
