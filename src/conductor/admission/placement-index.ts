/**
 * A PlacementIndex knows, for each claim kind, which regions and profiles its classes and
 * concrete resources offer — what the unknown region/profile warning compares a claim with.
 * It is kept in memory from the store's watches (PrefixCaches of ResourceClasses, Providers,
 * the default SchedulerProfile and every concrete kind served), so answering costs no store
 * read. The concrete resources (many, often written) are counted as their caches change, by
 * region and profile; the classes and Providers (few) are read again only when one of them
 * changed since last asked.
 *
 * It errs towards "served": a class that states no region and names no Provider may be placed
 * on any Provider (kubernetes classes are), so every Provider's region counts for it; a concrete
 * kind this Conductor does not define (an out-of-process provider's CRD) counts for every
 * claim kind; a region is served when a candidate is in it, below it or above it in the
 * default SchedulerProfile's region hierarchy (the built-in one until that profile exists).
 */
import type { Logger } from 'pino';
import { parseSupportedResource } from '../../apis/index.js';
import { MANAGED_CATEGORY, SYSTEM_NAMESPACE, apiRefs, defaultSchedulerProfileSpec } from '../../apis/index.js';
import { isPlainObject } from '../../machinery/object.js';
import { PrefixCache } from '../../apiserver/storage/prefix-cache.js';
import type { ObjectStore } from '../../apiserver/storage/object-store.js';
import type { ResourceRegistry } from '../../apiserver/registry/registry.js';
import type { KeyValue, Store } from '../../store/types.js';
import { RegionHierarchy, normalizeRegion } from '../../scheduler/region-hierarchy.js';

/** What the index keeps of a ResourceClass. */
interface ClassEntry {
  profile: string;
  region: string | undefined;
  /** The claim kinds it supports, as `kind/group` with the kind lower-cased. */
  supports: string[];
  /** Neither a region nor a Provider: it may be placed on any Provider. */
  placedAnywhere: boolean;
}

/** What the index keeps of a concrete resource. */
interface ResourceEntry {
  profile: string;
  region: string | undefined;
}

/** The regions and profiles one claim kind's candidates offer. */
export interface KindOffer {
  /** How many classes and resources serve the kind. */
  candidates: number;
  /** Regions as written (for messages), each once by its normalized form. */
  regions: Map<string, string>;
  profiles: Set<string>;
}

/** A claim kind as the index looks it up: its group, kind and plural. */
export interface ClaimKindName {
  group: string;
  kind: string;
  resource: string;
}

export interface PlacementIndexOptions {
  /** The claim kinds (`<plural>.<group>`) a concrete kind implements, for kinds this Conductor defines; undefined: unknown (counts for every claim kind). */
  implementsOf: (group: string, plural: string) => readonly string[] | undefined;
  logger?: Logger;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

function parse(kv: KeyValue): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(kv.value);
    return isPlainObject(v) ? v : {};
  } catch {
    return {};
  }
}

function field(obj: Record<string, unknown>, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) cur = isPlainObject(cur) ? cur[p] : undefined;
  return cur;
}

function classEntry(kv: KeyValue): ClassEntry {
  const obj = parse(kv);
  const name = text(field(obj, 'metadata', 'name')) ?? '';
  const supports: string[] = [];
  const listed = obj['supportedResources'];
  if (Array.isArray(listed)) {
    for (const entry of listed) {
      const r = typeof entry === 'string' ? parseSupportedResource(entry) : undefined;
      if (r) supports.push(`${r.kind.toLowerCase()}/${r.group}`);
    }
  }
  const region = text(field(obj, 'capabilities', 'region'));
  return {
    profile: text(obj['resourceClass']) ?? name,
    region,
    supports,
    placedAnywhere: region === undefined && text(field(obj, 'providerRef', 'name')) === undefined,
  };
}

function resourceEntry(kv: KeyValue): ResourceEntry {
  const obj = parse(kv);
  return { profile: text(field(obj, 'spec', 'resourceClass')) ?? '', region: text(field(obj, 'spec', 'capabilities', 'region')) };
}

function providerRegion(kv: KeyValue): string | undefined {
  const obj = parse(kv);
  return text(field(obj, 'spec', 'capabilities', 'region')) ?? text(field(obj, 'spec', 'region'));
}

function regionTree(kv: KeyValue): Record<string, string[]> {
  const tree = field(parse(kv), 'spec', 'regionHierarchy');
  const out: Record<string, string[]> = {};
  if (!isPlainObject(tree)) return out;
  for (const [parent, kids] of Object.entries(tree)) if (Array.isArray(kids)) out[parent] = kids.filter((k): k is string => typeof k === 'string');
  return out;
}

const DEFAULT_REGION_TREE: Record<string, string[]> = defaultSchedulerProfileSpec().regionHierarchy ?? {};

/** How many resources of one concrete kind are in each region and profile, kept as its cache changes. */
class ResourceCounts {
  candidates = 0;
  /** By normalized region: the region as first written, and how many. */
  readonly regions = new Map<string, { written: string; n: number }>();
  readonly profiles = new Map<string, number>();

  change(previous: ResourceEntry | undefined, next: ResourceEntry | undefined): void {
    if (previous) this.add(previous, -1);
    if (next) this.add(next, 1);
  }

  reset(): void {
    this.candidates = 0;
    this.regions.clear();
    this.profiles.clear();
  }

  private add(e: ResourceEntry, d: number): void {
    this.candidates += d;
    if (e.profile !== '') {
      const n = (this.profiles.get(e.profile) ?? 0) + d;
      if (n > 0) this.profiles.set(e.profile, n);
      else this.profiles.delete(e.profile);
    }
    if (e.region !== undefined) {
      const key = normalizeRegion(e.region);
      const seen = this.regions.get(key);
      const n = (seen?.n ?? 0) + d;
      if (n > 0) this.regions.set(key, { written: seen?.written ?? e.region, n });
      else this.regions.delete(key);
    }
  }
}

interface ResourceCache {
  cache: PrefixCache<ResourceEntry>;
  /** `<plural>.<group>` of the claim kinds implemented; undefined: any. */
  implements: readonly string[] | undefined;
  counts: ResourceCounts;
}

export class PlacementIndex {
  private readonly classes: PrefixCache<ClassEntry>;
  private readonly providers: PrefixCache<string | undefined>;
  private readonly profiles: PrefixCache<Record<string, string[]>>;
  private readonly resources = new Map<string, ResourceCache>();
  private readonly defaultProfileKey: string;
  private registryVersion = -1;
  private built?: Built;
  private unsubscribe: () => void = () => undefined;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly objects: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly options: PlacementIndexOptions,
  ) {
    const logger = options.logger;
    this.classes = new PrefixCache(store, objects.resourcePrefix(apiRefs.resourceclasses), { project: classEntry, logger });
    this.providers = new PrefixCache(store, objects.resourcePrefix(apiRefs.providers), { project: providerRegion, logger });
    const profilesPrefix = objects.resourcePrefix(apiRefs.schedulerprofiles);
    this.profiles = new PrefixCache(store, profilesPrefix, { project: regionTree, logger });
    this.defaultProfileKey = `${profilesPrefix}${SYSTEM_NAMESPACE}/default`;
  }

  /** Lists and watches what the index needs; concrete kinds added later are followed as the registry serves them. */
  async start(): Promise<void> {
    await Promise.all([this.classes.start(), this.providers.start(), this.profiles.start()]);
    this.unsubscribe = this.registry.onChange(() => this.followConcreteKinds());
    this.followConcreteKinds();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    this.classes.stop();
    this.providers.stop();
    this.profiles.stop();
    for (const r of this.resources.values()) r.cache.stop();
    this.resources.clear();
  }

  /** What the candidates of a claim kind offer; undefined while the caches are not ready. */
  offerOf(claim: ClaimKindName): KindOffer | undefined {
    const built = this.build();
    if (!built) return undefined;
    const out: KindOffer = { candidates: 0, regions: new Map(), profiles: new Set() };
    const classes = built.byKind.get(kindKey(claim));
    if (classes) {
      out.candidates += classes.candidates;
      for (const [k, v] of classes.regions) out.regions.set(k, v);
      for (const p of classes.profiles) out.profiles.add(p);
    }
    const resource = `${claim.resource}.${claim.group}`;
    for (const r of this.resources.values()) {
      if (r.implements !== undefined && !r.implements.includes(resource)) continue;
      out.candidates += r.counts.candidates;
      for (const [k, v] of r.counts.regions) if (!out.regions.has(k)) out.regions.set(k, v.written);
      for (const p of r.counts.profiles.keys()) out.profiles.add(p);
    }
    return out;
  }

  /** Whether `asked` is served by one of `regions`: in it, below it or above it in the hierarchy. */
  serves(asked: string, regions: Iterable<string>): boolean {
    const hierarchy = this.built?.hierarchy ?? new RegionHierarchy();
    const accepted = hierarchy.accepted(asked, 'overlapping');
    for (const r of regions) if (accepted.has(normalizeRegion(r))) return true;
    return false;
  }

  private followConcreteKinds(): void {
    if (this.stopped || this.registry.version() === this.registryVersion) return;
    this.registryVersion = this.registry.version();
    const served = new Set<string>();
    for (const rt of this.registry.all()) {
      if (rt.source.type !== 'crd' || !rt.categories.includes(MANAGED_CATEGORY)) continue;
      const key = `${rt.resource}.${rt.group}`;
      served.add(key);
      if (this.resources.has(key)) continue;
      const counts = new ResourceCounts();
      const cache = new PrefixCache<ResourceEntry>(this.store, this.objects.resourcePrefix(rt), {
        project: resourceEntry,
        logger: this.options.logger,
        onChange: (previous, next) => counts.change(previous, next),
        onReset: () => counts.reset(),
      });
      this.resources.set(key, { cache, implements: this.options.implementsOf(rt.group, rt.resource), counts });
      cache.start().catch((err: unknown) => this.options.logger?.warn({ err, kind: key }, 'cannot list a concrete kind for the placement warnings'));
    }
    for (const [key, r] of this.resources) {
      if (served.has(key)) continue;
      r.cache.stop();
      this.resources.delete(key);
    }
  }

  /** The classes' offers by claim kind and the region hierarchy, read again when a class, Provider or profile changed. */
  private build(): Built | undefined {
    if (!this.classes.ready || !this.providers.ready) return undefined;
    for (const r of this.resources.values()) if (!r.cache.ready) return undefined;
    const signature = `${this.classes.version},${this.providers.version},${this.profiles.version}`;
    if (this.built?.signature === signature) return this.built;
    const systemProviders = `${this.objects.resourcePrefix(apiRefs.providers)}${SYSTEM_NAMESPACE}/`;
    const providerRegions = [...this.providers.entries()]
      .filter(([key]) => key.startsWith(systemProviders))
      .map(([, region]) => region)
      .filter((r): r is string => r !== undefined);
    const byKind = new Map<string, KindOffer>();
    for (const [, c] of this.classes.entries()) {
      for (const kind of c.supports) {
        let o = byKind.get(kind);
        if (!o) byKind.set(kind, (o = { candidates: 0, regions: new Map(), profiles: new Set() }));
        o.candidates++;
        if (c.profile !== '') o.profiles.add(c.profile);
        for (const r of c.region !== undefined ? [c.region] : c.placedAnywhere ? providerRegions : []) {
          if (!o.regions.has(normalizeRegion(r))) o.regions.set(normalizeRegion(r), r);
        }
      }
    }
    // The default profile's hierarchy; before the controllers first create that profile, the one they will create.
    const tree = [...this.profiles.entries()].find(([key]) => key === this.defaultProfileKey)?.[1] ?? DEFAULT_REGION_TREE;
    this.built = { signature, byKind, hierarchy: new RegionHierarchy(tree) };
    return this.built;
  }
}

/** The classes' offers, with what they were built from. */
interface Built {
  signature: string;
  /** By claim kind, `kind/group` with the kind lower-cased. */
  byKind: Map<string, KindOffer>;
  hierarchy: RegionHierarchy;
}

function kindKey(claim: ClaimKindName): string {
  return `${claim.kind.toLowerCase()}/${claim.group}`;
}
