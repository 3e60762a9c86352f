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

/** A PortableMatcher decides whether a candidate's configuration honours a claim's portable fields. */
export type PortableMatcher = (claim: ClaimInfo, candidate: Candidate) => PortableMatch;

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
    if (byConcrete === undefined) this.matchers.set(ck, (byConcrete = new Map()));
    byConcrete.set(concrete === ANY_KIND ? ANY_KIND : kindKey(concrete), matcher);
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
  return (claim, candidate) => {
    const asked = versionText(claim.portable['version']);
    if (asked !== undefined) {
      if (parseVersionRange(asked) === undefined) return { fits: false, reason: `invalid version range ${JSON.stringify(asked)}` };
      const offered = versionOf(candidate.portable);
      const reason = `version not in ${JSON.stringify(asked)}`;
      if (versionText(offered) === undefined) {
        if (candidate.type === 'resource') return { fits: false, reason, detail: 'states no version' };
      } else {
        const v = coerceVersion(offered);
        if (v === undefined) return { fits: false, reason, detail: `version ${JSON.stringify(versionText(offered))} is not a version` };
        if (!parseVersionRange(asked)!.test(v)) return { fits: false, reason, detail: `has ${versionText(offered)}` };
      }
    }
    if (candidate.type === 'resource' && candidate.sharing.mode === 'Exclusive') {
      for (const f of sameFields) {
        const want = claim.portable[f];
        const have = candidate.portable[f];
        if (want === undefined || want === null || want === '' || have === undefined || have === null || have === '') continue;
        if (String(want) !== String(have)) return { fits: false, reason: `${f} is not ${JSON.stringify(String(want))}`, detail: `has ${JSON.stringify(String(have))}` };
      }
    }
    return FITS;
  };
}

/** The claim kinds of DESIGN 3.1 that the built-in matchers serve. */
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
