/**
 * A ClaimTypeIndex tells which served resource types are claim kinds: CRD-served namespaced
 * kinds in the `claim` category or whose CRD carries the `conductor.io/abstract` label. It is
 * recomputed when the registry changes (CRDs added, changed or removed) and shared by the
 * admission plugins that treat claims specially.
 */
import { CLAIM_CATEGORY, isClaimCrd } from '../../apis/index.js';
import type { KObject } from '../../machinery/object.js';
import type { ObjectStore } from '../../apiserver/storage/object-store.js';
import type { ResourceRegistry } from '../../apiserver/registry/registry.js';
import type { ResourceType } from '../../apiserver/registry/resource-type.js';

/** The claim kinds served, by `group/resource` (one version each: storage is shared). */
export type ClaimTypes = Map<string, ResourceType>;

export function claimTypeKey(rt: Pick<ResourceType, 'group' | 'resource'>): string {
  return `${rt.group}/${rt.resource}`;
}

export class ClaimTypeIndex {
  private kinds?: { version: number; types: Promise<ClaimTypes> };

  constructor(
    private readonly objects: ObjectStore,
    private readonly registry: ResourceRegistry,
    /** Told about stored CRDs that cannot be decoded (they are skipped). */
    private readonly report: (message: string) => void = () => {},
  ) {}

  /** types is the current map of claim kinds. */
  types(): Promise<ClaimTypes> {
    const version = this.registry.version();
    if (this.kinds?.version !== version) {
      const types = this.load();
      this.kinds = { version, types };
      types.catch(() => {
        if (this.kinds?.types === types) this.kinds = undefined;
      });
    }
    return this.kinds.types;
  }

  /** isClaim says whether `rt` is a claim kind; only CRD-served namespaced types can be. */
  async isClaim(rt: ResourceType): Promise<boolean> {
    if (rt.source.type !== 'crd' || !rt.namespaced) return false;
    return (await this.types()).has(claimTypeKey(rt));
  }

  private async load(): Promise<ClaimTypes> {
    const labelled = new Set<string>();
    const crdType = this.registry.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    if (crdType) {
      const res = await this.objects.list(crdType, undefined, {});
      for (const kv of res.items) {
        const crd = this.decode(crdType, kv.value, kv.modRevision);
        if (crd && isClaimCrd(crd)) labelled.add(crd.metadata.name ?? '');
      }
    }
    const out: ClaimTypes = new Map();
    for (const rt of this.registry.all()) {
      if (rt.source.type !== 'crd' || !rt.namespaced) continue;
      if (!rt.categories.includes(CLAIM_CATEGORY) && !labelled.has(rt.source.crdName)) continue;
      const key = claimTypeKey(rt);
      const seen = out.get(key);
      if (!seen || (rt.source.storage && !(seen.source.type === 'crd' && seen.source.storage))) out.set(key, rt);
    }
    return out;
  }

  private decode(rt: ResourceType, value: string, revision: number): KObject | undefined {
    return decodeOrReport(this.objects, rt, value, revision, this.report);
  }
}

/** decodeOrReport decodes a stored value, or reports why it cannot and returns undefined (it is skipped). */
export function decodeOrReport(
  objects: ObjectStore,
  rt: ResourceType,
  value: string,
  revision: number,
  report: (message: string) => void,
): KObject | undefined {
  try {
    return objects.decode(rt, { key: '', value, createRevision: 0, modRevision: revision });
  } catch (err) {
    report(`a stored ${rt.kind} cannot be decoded (${err instanceof Error ? err.message : String(err)}); skipped`);
    return undefined;
  }
}
