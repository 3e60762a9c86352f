/**
 * Discovery documents: the legacy forms (APIVersions at /api, APIGroupList at /apis,
 * APIGroup at /apis/<group>, APIResourceList at /api/v1 and /apis/<group>/<version>) and
 * the aggregated form (APIGroupDiscoveryList at /api and /apis for clients that ask for it).
 */
import { createHash } from 'node:crypto';
import type { ResourceType } from '../registry/resource-type.js';
import { storageVersionOf, subresourcesOf, type ServedGroup, type ServedSet } from './served-set.js';

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: { clientCIDR: string; serverAddress: string }[];
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

export interface DiscoveryGVK {
  group: string;
  version: string;
  kind: string;
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: DiscoveryGVK;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; responseKind: DiscoveryGVK; verbs: string[] }[];
}

export interface APIVersionDiscovery {
  version: string;
  resources: APIResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

export interface APIGroupDiscovery {
  metadata: { name: string };
  versions: APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: 'apidiscovery.k8s.io/v2' | 'apidiscovery.k8s.io/v2beta1';
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

/**
 * storageVersionHash fingerprints the group, version and kind objects are stored as, so
 * clients can notice a storage migration: the first 8 bytes of a SHA-256, in base64.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** buildApiVersions is the legacy `/api` answer. */
export function buildApiVersions(set: ServedSet, serverAddress: string): APIVersions {
  return {
    kind: 'APIVersions',
    versions: set.core ? set.core.versions.map((v) => v.version) : [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupOf(group: ServedGroup): APIGroup {
  const versions = group.versions.map((v) => ({ groupVersion: v.groupVersion, version: v.version }));
  return { name: group.name, versions, preferredVersion: versions[0] };
}

/** buildApiGroupList is the legacy `/apis` answer. */
export function buildApiGroupList(set: ServedSet): APIGroupList {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: set.groups.map(groupOf) };
}

/** buildApiGroup is the `/apis/<group>` answer, or undefined for a group not served. */
export function buildApiGroup(set: ServedSet, name: string): APIGroup | undefined {
  const group = set.groups.find((g) => g.name === name);
  if (!group) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupOf(group) };
}

function nonEmpty(list: string[]): string[] | undefined {
  return list.length > 0 ? [...list] : undefined;
}

/**
 * buildApiResourceList is the `/api/v1` or `/apis/<group>/<version>` answer, or undefined
 * for a group-version not served. Resources are sorted by name, so a resource comes
 * before its subresources (`namespaces`, `namespaces/finalize`, `namespaces/status`),
 * which clients that pick the first entry of a kind rely on.
 */
export function buildApiResourceList(set: ServedSet, all: readonly ResourceType[], group: string, version: string): APIResourceList | undefined {
  const gv = set.byGroupVersion.get(group ? `${group}/${version}` : version);
  if (!gv || gv.group !== group) return undefined;
  const resources: APIResource[] = [];
  for (const rt of gv.resources) {
    const main: APIResource = {
      name: rt.resource,
      singularName: rt.singular,
      namespaced: rt.namespaced,
      kind: rt.kind,
      verbs: [...rt.verbs],
    };
    const shortNames = nonEmpty(rt.shortNames);
    if (shortNames) main.shortNames = shortNames;
    const categories = nonEmpty(rt.categories);
    if (categories) main.categories = categories;
    main.storageVersionHash = storageVersionHash(rt.group, storageVersionOf(rt, all), rt.kind);
    resources.push(main);
    for (const sub of subresourcesOf(rt)) {
      resources.push({
        name: `${rt.resource}/${sub.name}`,
        singularName: '',
        namespaced: rt.namespaced,
        kind: sub.kind,
        verbs: [...sub.verbs],
      });
    }
  }
  resources.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv.groupVersion, resources };
}

function resourceDiscovery(rt: ResourceType): APIResourceDiscovery {
  const out: APIResourceDiscovery = {
    resource: rt.resource,
    responseKind: { group: rt.group, version: rt.version, kind: rt.kind },
    scope: rt.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: rt.singular,
    verbs: [...rt.verbs],
  };
  const shortNames = nonEmpty(rt.shortNames);
  if (shortNames) out.shortNames = shortNames;
  const categories = nonEmpty(rt.categories);
  if (categories) out.categories = categories;
  const subs = subresourcesOf(rt);
  if (subs.length > 0) {
    out.subresources = subs.map((s) => ({
      subresource: s.name,
      responseKind: { group: rt.group, version: rt.version, kind: s.kind },
      verbs: [...s.verbs],
    }));
  }
  return out;
}

function groupDiscovery(group: ServedGroup): APIGroupDiscovery {
  return {
    metadata: { name: group.name },
    versions: group.versions.map((v) => ({
      version: v.version,
      resources: v.resources.map(resourceDiscovery),
      freshness: 'Current',
    })),
  };
}

/**
 * buildAggregated is the aggregated discovery answer: for `api`, one item for the core
 * group (with the empty name); for `apis`, one item per named group. Versions are listed
 * in preference order, the preferred one first.
 */
export function buildAggregated(set: ServedSet, which: 'api' | 'apis', version: 'v2' | 'v2beta1'): APIGroupDiscoveryList {
  const groups = which === 'api' ? (set.core ? [set.core] : []) : set.groups;
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map(groupDiscovery),
  };
}
