/**
 * The resource catalog controllers that act on every kind (garbage collector, namespace
 * deletion) use to know what is served, and to map an ownerReference's apiVersion and kind
 * to a resource.
 */
import type { ResourceRef } from '../client/types.js';
import { parseApiVersion } from '../machinery/object.js';

export interface CatalogEntry {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

export interface ResourceCatalog {
  all(): CatalogEntry[];
  onChange(listener: () => void): () => void;
}

export function refOf(e: CatalogEntry): ResourceRef {
  return { group: e.group, version: e.version, resource: e.resource, namespaced: e.namespaced, kind: e.kind };
}

/** One entry per group/resource (any served version will do for metadata work). */
export function uniqueResources(catalog: ResourceCatalog, verbs: string[]): CatalogEntry[] {
  const seen = new Map<string, CatalogEntry>();
  for (const e of catalog.all()) {
    if (!verbs.every((v) => e.verbs.includes(v))) continue;
    const key = `${e.group}/${e.resource}`;
    if (!seen.has(key)) seen.set(key, e);
  }
  return [...seen.values()];
}

/** The served resource for an apiVersion + kind, preferring the exact version. */
export function resolveKind(catalog: ResourceCatalog, apiVersion: string, kind: string): CatalogEntry | undefined {
  const { group, version } = parseApiVersion(apiVersion);
  let fallback: CatalogEntry | undefined;
  for (const e of catalog.all()) {
    if (e.group !== group || e.kind !== kind) continue;
    if (e.version === version) return e;
    fallback ??= e;
  }
  return fallback;
}
