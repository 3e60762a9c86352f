/**
 * PortableConfig matchers: per (claim kind, concrete kind) a function deciding whether a
 * candidate's provider-specific configuration honours the claim's portable fields. Providers
 * register theirs; the built-in one checks a version range and fields that must be equal.
 */
import { kindKey } from './keys.js';
import type { Candidate, ClaimInfo, GroupKind } from './types.js';
import { coerceVersion, parseVersionRange, versionText } from './version-range.js';

/** A PortableMatch is a matcher's verdict; a failure's reason is counted in explanations like a filter summary. */
export type PortableMatch = { readonly fits: true } | { readonly fits: false; readonly reason: string; readonly detail?: string };

/** A PreparedPortableMatch is a matcher's verdict function for one claim. */
export type PreparedPortableMatch = (candidate: Candidate) => PortableMatch;

/**
 * A PortableMatcher decides whether a candidate's configuration honours a claim's portable
 * fields. It may carry `prepare`, doing the per-claim work (parsing a range) once and
 * returning the per-candidate verdict; PortableConfig uses it when present.
 */
export interface PortableMatcher {
  (claim: ClaimInfo, candidate: Candidate): PortableMatch;
  readonly prepare?: (claim: ClaimInfo) => PreparedPortableMatch;
}

/** prepareMatcher returns a matcher's verdict function for one claim. */
export function prepareMatcher(matcher: PortableMatcher, claim: ClaimInfo): PreparedPortableMatch {
  return matcher.prepare !== undefined ? matcher.prepare(claim) : (c) => matcher(claim, c);
}

const FITS: PortableMatch = Object.freeze({ fits: true });
const ANY_KIND = '*';

/** The concrete kind a candidate is or would create. */
export function concreteKind(c: Candidate): GroupKind {
  return c.type === 'resource' ? c.kind : c.templateKind;
}

/** A PortableMatcherRegistry maps (claim kind, concrete kind or any) to a matcher. */
export class PortableMatcherRegistry {
  /** claim kind key → concrete kind key (or '*') → matcher. */
  private readonly matchers = new Map<string, Map<string, PortableMatcher>>();

  /** register adds or replaces the matcher for a claim kind and a concrete kind, or every concrete kind with '*'. */
  register(claimKind: GroupKind, concrete: GroupKind | '*', matcher: PortableMatcher): this {
    const ck = kindKey(claimKind);
    let byConcrete = this.matchers.get(ck);
    if (byConcrete === undefined) this.matchers.set(ck, (byConcrete = new Map<string, PortableMatcher>()));
    byConcrete.set(concrete === ANY_KIND ? ANY_KIND : kindKey(concrete), matcher);
    return this;
  }

  /** unregister removes the matcher registered for exactly this pair. */
  unregister(claimKind: GroupKind, concrete: GroupKind | '*'): this {
    const byConcrete = this.matchers.get(kindKey(claimKind));
    byConcrete?.delete(concrete === ANY_KIND ? ANY_KIND : kindKey(concrete));
    if (byConcrete?.size === 0) this.matchers.delete(kindKey(claimKind));
    return this;
  }

  /** lookup finds the matcher for the exact pair, else the claim kind's '*' matcher. */
  lookup(claimKind: GroupKind, concrete: GroupKind): PortableMatcher | undefined {
    const byConcrete = this.matchers.get(kindKey(claimKind));
    return byConcrete === undefined ? undefined : (byConcrete.get(kindKey(concrete)) ?? byConcrete.get(ANY_KIND));
  }

  /** A copy, so a caller can add to the built-ins without changing a shared registry. */
  clone(): PortableMatcherRegistry {
    const r = new PortableMatcherRegistry();
    for (const [ck, m] of this.matchers) r.matchers.set(ck, new Map(m));
    return r;
  }
}

/** VersionedMatcherOptions tune versionedMatcher. */
export interface VersionedMatcherOptions {
  /** Reads the candidate's version from its portable config; default `version`, then `engineVersion`, then `databaseVersion`. */
  readonly versionOf?: (portable: Readonly<Record<string, unknown>>) => unknown;
  /**
   * Claim fields an Exclusive resource must match when both set them (e.g. `masterUsername`).
   * Shared resources give each claim its own, and classes take the claim's values, so neither is compared.
   */
  readonly sameFields?: readonly string[];
}

function defaultVersionOf(p: Readonly<Record<string, unknown>>): unknown {
  return p['version'] ?? p['engineVersion'] ?? p['databaseVersion'];
}

/**
 * versionedMatcher builds a matcher for services with a version: the claim's `version` is a
 * semver range the candidate's (coerced) version must satisfy. A resource that states no
 * version does not fit a claim that asks for one; a class without one does (its provider
 * picks). A claim whose range cannot be read fits nothing, and says so.
 */
export function versionedMatcher(options: VersionedMatcherOptions = {}): PortableMatcher {
  const versionOf = options.versionOf ?? defaultVersionOf;
  const sameFields = options.sameFields ?? [];
  const prepare = (claim: ClaimInfo): PreparedPortableMatch => {
    const asked = versionText(claim.portable['version']);
    const range = asked === undefined ? undefined : parseVersionRange(asked);
    if (asked !== undefined && range === undefined) {
      const invalid: PortableMatch = { fits: false, reason: `invalid version range ${JSON.stringify(asked)}` };
      return () => invalid;
    }
    const reason = `version not in ${JSON.stringify(asked)}`;
    // Many candidates state the same version: decide each version text once per claim.
    const byVersion = new Map<string, PortableMatch>();
    const versionVerdict = (text: string): PortableMatch => {
      let m = byVersion.get(text);
      if (m === undefined) {
        const v = coerceVersion(text);
        m =
          v === undefined
            ? { fits: false, reason, detail: `version ${JSON.stringify(text)} is not a version` }
            : range!.test(v)
              ? FITS
              : { fits: false, reason, detail: `has ${text}` };
        byVersion.set(text, m);
      }
      return m;
    };
    const wants = sameFields.flatMap((f) => {
      const want = claim.portable[f];
      return want === undefined || want === null || want === '' ? [] : [{ f, want: String(want) }];
    });
    return (candidate) => {
      if (range !== undefined) {
        const offered = versionText(versionOf(candidate.portable));
        if (offered === undefined) {
          if (candidate.type === 'resource') return { fits: false, reason, detail: 'states no version' };
        } else {
          const m = versionVerdict(offered);
          if (!m.fits) return m;
        }
      }
      if (wants.length > 0 && candidate.type === 'resource' && candidate.sharing.mode === 'Exclusive') {
        for (const { f, want } of wants) {
          const have = candidate.portable[f];
          if (have === undefined || have === null || have === '') continue;
          if (want !== String(have)) return { fits: false, reason: `${f} is not ${JSON.stringify(want)}`, detail: `has ${JSON.stringify(String(have))}` };
        }
      }
      return FITS;
    };
  };
  return Object.assign((claim: ClaimInfo, candidate: Candidate) => prepare(claim)(candidate), { prepare });
}

/** The claim kinds of docs/design.md 3.1 that the built-in matchers serve. */
export const BUILTIN_MATCHED_KINDS: Readonly<Record<'mysql' | 'postgresql' | 'redis', GroupKind>> = Object.freeze({
  mysql: { group: 'storage.conductor.io', kind: 'MySQLInstance' },
  postgresql: { group: 'storage.conductor.io', kind: 'PostgreSQLInstance' },
  redis: { group: 'cache.conductor.io', kind: 'RedisCluster' },
});

/**
 * builtinPortableMatchers returns a registry with the version matchers of the built-in
 * versioned kinds, for any concrete kind: MySQLInstance and PostgreSQLInstance (version
 * range, masterUsername, databaseName) and RedisCluster (version range, evictionPolicy).
 */
export function builtinPortableMatchers(): PortableMatcherRegistry {
  const sql = versionedMatcher({ sameFields: ['masterUsername', 'databaseName'] });
  return new PortableMatcherRegistry()
    .register(BUILTIN_MATCHED_KINDS.mysql, ANY_KIND, sql)
    .register(BUILTIN_MATCHED_KINDS.postgresql, ANY_KIND, sql)
    .register(BUILTIN_MATCHED_KINDS.redis, ANY_KIND, versionedMatcher({ sameFields: ['evictionPolicy'] }));
}
