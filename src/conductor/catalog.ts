/**
 * The catalog: every kind this Conductor serves — the claim kinds and administrators' kinds
 * of apis/, and the concrete kinds of the provider modules built in (`builtInProviders`) —
 * with their CRDs and ResourceRefs. CRD installation, `conductor crds` and deploy/crds all
 * come from it. Building it checks that the pieces fit (validateCatalog): a concrete kind
 * that names a claim kind the catalog lacks, or two definitions of one kind, stop Conductor at
 * start-up with a message that says which.
 *
 * Adding a provider: its folder exports one ProviderDefinition; add it to `builtInProviders`.
 */
import type { KObject } from '../machinery/object.js';
import { resourceRef, type ResourceRef } from '../client/types.js';
import {
  adminKinds as apiAdminKinds,
  apiRefs as apiKindRefs,
  claimKinds as apiClaimKinds,
  implementedClaimKinds,
  installCrds as installCrdsOf,
  type InstallCrdsOptions,
  type InstallCrdsResult,
  type KindDefinition,
} from '../apis/index.js';
import type { Client } from '../client/types.js';
import type { ConcreteKindDefinition, ProviderDefinition } from '../providers/spi.js';
// The provider values only (their kinds' definitions): what runs the kinds loads when a provider starts.
import { localProvider, localRefs } from '../providers/local/provider.js';
import { memoryProvider, memoryRefs } from '../providers/memory/index.js';
import { kubernetesProvider } from '../providers/kubernetes/provider.js';
import { kubernetesRefs } from '../providers/kubernetes/kinds.js';
import { azureProvider } from '../providers/azure/provider.js';
import { azureRefs } from '../providers/azure/kinds.js';
import { gcpProvider } from '../providers/gcp/provider.js';
import { gcpRefs } from '../providers/gcp/kinds.js';
import { awsProvider } from '../providers/aws/provider.js';
import { awsRefs } from '../providers/aws/kinds.js';

/** The provider modules built into this Conductor: one line per provider. */
export const builtInProviders = [localProvider, memoryProvider, kubernetesProvider, azureProvider, gcpProvider, awsProvider] as const;

/** A CatalogKind is what the catalog knows of any kind: names, CRD and the Client's handle. */
export interface CatalogKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly crdName: string;
  readonly ref: ResourceRef;
  crd(): KObject;
}

/** What a catalog is built from: apis/' kinds and the providers' (each kind once, in-tree kinds with their full definitions). */
export interface CatalogSources<K extends ConcreteKindDefinition = ConcreteKindDefinition> {
  readonly claimKinds: readonly KindDefinition[];
  readonly adminKinds: readonly KindDefinition[];
  readonly providers: readonly (Pick<ProviderDefinition, 'name'> & { readonly kinds: readonly K[] })[];
}

/** A Catalog is every kind served, found by group and kind. */
export interface Catalog<K extends CatalogKind = CatalogKind> {
  readonly claimKinds: readonly KindDefinition[];
  readonly adminKinds: readonly KindDefinition[];
  /** The providers' concrete kinds, in provider order. */
  readonly concreteKinds: readonly K[];
  /** Every kind, in the order their CRDs are installed: admin, claim, concrete. */
  readonly allKinds: readonly (KindDefinition | K)[];
  /** Fresh copies of every CRD, in install order. */
  crds(): KObject[];
  /** The kind serving `group`/`kind` (kind matched case-insensitively), if any. */
  findKind(group: string, kind: string): KindDefinition | K | undefined;
}

/** A CatalogError lists everything wrong with a catalog's sources. */
export class CatalogError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the catalog of kinds is inconsistent; fix the kind definitions:\n- ${problems.join('\n- ')}`);
    this.name = 'CatalogError';
  }
}

const gk = (k: { group: string; kind: string }) => `${k.group}/${k.kind}`;

/**
 * validateCatalog lists what does not fit: a kind defined twice (same group and kind, or same
 * CRD name); a concrete kind that implements no claim kind, names a claim kind that is not in
 * the catalog, or whose CRD's `conductor.io/implements` annotation says otherwise than its
 * implementations. An empty list means the catalog can be built.
 */
export function validateCatalog(sources: CatalogSources): string[] {
  const problems: string[] = [];
  const owner = new Map<string, string>();
  const claim = (where: string, key: string) => {
    const had = owner.get(key);
    if (had) problems.push(`${key} is defined twice: by ${had} and by ${where}`);
    else owner.set(key, where);
  };
  for (const k of sources.adminKinds) claim('apis (admin kinds)', gk(k));
  for (const k of sources.claimKinds) claim('apis (claim kinds)', gk(k));
  const claimsByGk = new Map(sources.claimKinds.map((k) => [gk(k).toLowerCase(), k]));
  for (const p of sources.providers) {
    for (const k of p.kinds) {
      const where = `provider ${p.name}`;
      claim(where, gk(k));
      if (k.implements.length === 0) problems.push(`${where}: ${gk(k)} implements no claim kind`);
      const wanted: string[] = [];
      for (const s of k.implements) {
        const c = claimsByGk.get(gk(s.claimKind).toLowerCase());
        if (!c) {
          problems.push(
            `${where}: ${gk(k)} implements ${gk(s.claimKind)}, which is not a claim kind of the catalog (known: ${[...claimsByGk.values()].map(gk).join(', ')})`,
          );
          continue;
        }
        wanted.push(c.crdName);
      }
      const annotated = implementedClaimKinds(k.crd());
      if (annotated.join(',') !== wanted.join(',') && wanted.length === k.implements.length) {
        problems.push(`${where}: the CRD of ${gk(k)} says it implements ${annotated.join(', ') || 'nothing'}, its implementations say ${wanted.join(', ')}`);
      }
    }
  }
  const crdNames = new Map<string, string>();
  for (const crd of [...sources.adminKinds, ...sources.claimKinds].map((k) => k.crd()).concat(sources.providers.flatMap((p) => p.kinds.map((k) => k.crd())))) {
    const name = crd.metadata.name ?? '';
    if (crdNames.has(name)) problems.push(`CRD ${name} is defined twice`);
    crdNames.set(name, name);
  }
  return problems;
}

/** The Client handle on a concrete kind that is not a KindDefinition (built from its CRD's names and scope). */
function catalogKind(k: ConcreteKindDefinition): CatalogKind {
  if ('ref' in k && 'crdName' in k) return k as unknown as CatalogKind;
  const crd = k.crd();
  const namespaced = (crd.spec as { scope?: string } | undefined)?.scope !== 'Cluster';
  return {
    group: k.group,
    version: k.version,
    kind: k.kind,
    plural: k.plural,
    crdName: crd.metadata.name ?? `${k.plural}.${k.group}`,
    ref: resourceRef(`${k.group}/${k.version}`, k.kind, k.plural, namespaced),
    crd: () => k.crd(),
  };
}

/** buildCatalog validates its sources and assembles the catalog; it throws a CatalogError listing every problem. */
export function buildCatalog<K extends ConcreteKindDefinition>(sources: CatalogSources<K>): Catalog<K & CatalogKind> {
  const problems = validateCatalog(sources);
  if (problems.length > 0) throw new CatalogError(problems);
  const concreteKinds = sources.providers.flatMap((p) => p.kinds.map((k) => catalogKind(k) as K & CatalogKind));
  const allKinds = [...sources.adminKinds, ...sources.claimKinds, ...concreteKinds];
  return {
    claimKinds: sources.claimKinds,
    adminKinds: sources.adminKinds,
    concreteKinds,
    allKinds,
    crds: () => allKinds.map((k) => k.crd()),
    findKind(group, kind) {
      const lower = kind.toLowerCase();
      return allKinds.find((d) => d.group === group && d.kind.toLowerCase() === lower);
    },
  };
}

/** One of the built-in providers. */
export type BuiltInProvider = (typeof builtInProviders)[number];
/** One of the built-in providers' kinds (named: with many kinds TypeScript no longer infers the union by itself). */
type BuiltInKind = BuiltInProvider['kinds'][number];

/** catalogOf is the catalog of apis/' kinds and the given built-in providers' kinds. */
export function catalogOf(providers: readonly BuiltInProvider[]) {
  return buildCatalog<BuiltInKind>({ claimKinds: apiClaimKinds, adminKinds: apiAdminKinds, providers });
}

/** The catalog of this Conductor: apis/' kinds and the built-in providers' kinds. */
export const catalog = buildCatalog<BuiltInKind>({ claimKinds: apiClaimKinds, adminKinds: apiAdminKinds, providers: builtInProviders });

/** The built-in providers `conductor controllers` starts against another API server: those whose resources do not live on the server's machine. */
export const clusterProviders: readonly BuiltInProvider[] = builtInProviders.filter((p) => !(p as ProviderDefinition).onServerHost);

/** The claim (abstract) kinds. */
export const claimKinds = catalog.claimKinds;
/** The administrators' kinds. */
export const adminKinds = catalog.adminKinds;
/** The built-in providers' concrete kinds. */
export const concreteKinds = catalog.concreteKinds;
/** Every kind, in CRD install order. */
export const allKinds = catalog.allKinds;

/** Fresh copies of every CRD of the catalog. */
export function allCrds(): KObject[] {
  return catalog.crds();
}

/** The kind serving `group`/`kind` (kind matched case-insensitively), if any. */
export function findKind(group: string, kind: string): ReturnType<typeof catalog.findKind> {
  return catalog.findKind(group, kind);
}

/** ResourceRefs for the Client of every kind, by plural resource name. */
export const apiRefs = { ...apiKindRefs, ...localRefs, ...memoryRefs, ...kubernetesRefs, ...azureRefs, ...gcpRefs, ...awsRefs } as const;

/** installCrds installs the catalog's CRDs (or `opts.crds`) and waits until they are Established. */
export function installCrds(client: Client, opts: Partial<InstallCrdsOptions> = {}): Promise<InstallCrdsResult> {
  return installCrdsOf(client, { ...opts, crds: opts.crds ?? allCrds() });
}
