/**
 * A ServedSet is the served ResourceTypes arranged the way discovery presents them: the
 * core group, then named groups, each with its versions in preference order and each
 * version with its resources sorted by name. Every document builder works from one.
 */
import type { ResourceType } from '../registry/resource-type.js';
import { compareVersionPriority } from './version-priority.js';

/** A Subresource is one served subresource of a resource (`status`, `finalize`, ...). */
export interface Subresource {
  name: string;
  kind: string;
  verbs: string[];
}

export interface ServedVersion {
  group: string;
  version: string;
  /** `v1` for the core group, `<group>/<version>` otherwise. */
  groupVersion: string;
  /** The resources of this group-version, sorted by plural name. */
  resources: ResourceType[];
}

export interface ServedGroup {
  /** '' for the core group. */
  name: string;
  /** Versions in descending preference; the first is the preferred version. */
  versions: ServedVersion[];
}

export interface ServedSet {
  core: ServedGroup | undefined;
  /** Named groups: built-in groups first (in a fixed order), then the others by name. */
  groups: ServedGroup[];
  /** Every group-version by its group-version string (`v1`, `apps/v1`). */
  byGroupVersion: Map<string, ServedVersion>;
}

/**
 * Subresources a kind serves beyond what ResourceType describes, keyed by
 * `<group>/<resource>`. Namespaces take a `finalize` subresource (PUT only) that lets the
 * namespace controller clear `spec.finalizers`.
 */
const EXTRA_SUBRESOURCES: Record<string, Subresource[]> = {
  '/namespaces': [{ name: 'finalize', kind: 'Namespace', verbs: ['update'] }],
};

const STATUS_VERBS = ['get', 'patch', 'update'];

/** subresourcesOf lists the subresources a resource type serves, sorted by name. */
export function subresourcesOf(rt: ResourceType): Subresource[] {
  const out: Subresource[] = [];
  if (rt.subresources.status) out.push({ name: 'status', kind: rt.kind, verbs: STATUS_VERBS });
  for (const extra of EXTRA_SUBRESOURCES[`${rt.group}/${rt.resource}`] ?? []) out.push(extra);
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The order Kubernetes lists its own groups in; unknown groups follow, by name. */
const BUILTIN_GROUP_ORDER = [
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
];

function groupRank(name: string, builtin: boolean): [number, number] {
  if (!builtin) return [2, 0];
  const i = BUILTIN_GROUP_ORDER.indexOf(name);
  return i >= 0 ? [0, i] : [1, 0];
}

/** buildServedSet arranges resource types into groups and versions. */
export function buildServedSet(types: readonly ResourceType[]): ServedSet {
  const byGroup = new Map<string, Map<string, ResourceType[]>>();
  const builtinGroups = new Set<string>();
  for (const rt of types) {
    let versions = byGroup.get(rt.group);
    if (!versions) byGroup.set(rt.group, (versions = new Map<string, ResourceType[]>()));
    let list = versions.get(rt.version);
    if (!list) versions.set(rt.version, (list = []));
    list.push(rt);
    if (rt.source.type === 'builtin') builtinGroups.add(rt.group);
  }

  const byGroupVersion = new Map<string, ServedVersion>();
  let core: ServedGroup | undefined;
  const groups: ServedGroup[] = [];
  for (const [name, versionMap] of byGroup) {
    const versions = [...versionMap.keys()].sort(compareVersionPriority).map((version): ServedVersion => {
      const resources = [...(versionMap.get(version) ?? [])].sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
      const groupVersion = name ? `${name}/${version}` : version;
      const sv = { group: name, version, groupVersion, resources };
      byGroupVersion.set(groupVersion, sv);
      return sv;
    });
    const group = { name, versions };
    if (name === '') core = group;
    else groups.push(group);
  }
  groups.sort((a, b) => {
    const [ra, ia] = groupRank(a.name, builtinGroups.has(a.name));
    const [rb, ib] = groupRank(b.name, builtinGroups.has(b.name));
    if (ra !== rb) return ra - rb;
    if (ia !== ib) return ia - ib;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
  return { core, groups, byGroupVersion };
}

/**
 * storageVersionOf names the version a resource's objects are stored at: for a CRD, the
 * version marked as storage among the served types of the same CRD; otherwise its own.
 */
export function storageVersionOf(rt: ResourceType, all: readonly ResourceType[]): string {
  const source = rt.source;
  if (source.type !== 'crd' || source.storage) return rt.version;
  for (const other of all) {
    if (other.source.type === 'crd' && other.source.crdName === source.crdName && other.source.storage) {
      return other.version;
    }
  }
  return rt.version;
}
