/**
 * The served kinds the dashboard shows, found as kubectl finds them: each API group's
 * preferred version, and the categories a kind belongs to (`claim`, `managed`).
 */
import type { ResourceRef } from '../../client/types.js';
import { CLAIM_CATEGORY, MANAGED_CATEGORY } from '../../apis/well-known.js';
import type { RefLookup } from '../../trace/trace-tree.js';
import type { Api } from './api.js';

interface GroupList {
  groups?: { name: string; preferredVersion?: { groupVersion: string; version: string } }[];
}
interface ResourceList {
  resources?: { name: string; kind: string; namespaced: boolean; categories?: string[] }[];
}

export interface Served {
  /** Every claim kind (category `claim`). */
  claims: ResourceRef[];
  /** Every concrete kind (category `managed`). */
  managed: ResourceRef[];
  /** The ResourceRef of an apiVersion and kind, for the trace. */
  lookup: RefLookup;
  /** A kind by `plural.group` (the claim page's address). */
  byResource(qualified: string): ResourceRef | undefined;
}

export const qualifiedName = (ref: ResourceRef) => (ref.group ? `${ref.resource}.${ref.group}` : ref.resource);

export async function discover(api: Api): Promise<Served> {
  const groups = await api.request<GroupList>('GET', '/apis');
  const all: { ref: ResourceRef; categories: string[] }[] = [];
  await Promise.all(
    (groups.groups ?? []).map(async (g) => {
      const version = g.preferredVersion?.version;
      if (!version) return;
      const list = await api.request<ResourceList>('GET', `/apis/${g.name}/${version}`);
      for (const r of list.resources ?? []) {
        if (r.name.includes('/')) continue;
        all.push({ ref: { group: g.name, version, resource: r.name, namespaced: r.namespaced, kind: r.kind }, categories: r.categories ?? [] });
      }
    }),
  );
  const byName = (a: ResourceRef, b: ResourceRef) => a.kind.localeCompare(b.kind);
  return {
    claims: all
      .filter((r) => r.categories.includes(CLAIM_CATEGORY))
      .map((r) => r.ref)
      .sort(byName),
    managed: all
      .filter((r) => r.categories.includes(MANAGED_CATEGORY))
      .map((r) => r.ref)
      .sort(byName),
    lookup: async (apiVersion, kind) => {
      const slash = apiVersion.indexOf('/');
      const group = slash < 0 ? '' : apiVersion.slice(0, slash);
      return all.find((r) => r.ref.group === group && r.ref.kind === kind)?.ref;
    },
    byResource: (qualified) => all.find((r) => qualifiedName(r.ref) === qualified)?.ref,
  };
}
