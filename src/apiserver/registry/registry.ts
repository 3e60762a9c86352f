/**
 * A ResourceRegistry holds every ResourceType the server serves and answers the lookups the
 * HTTP layer and clients need: by group/version/resource, by kind, by short name. CRDs add
 * and remove types at run time; listeners hear about every change (discovery, OpenAPI).
 */
import type { ResourceType } from './resource-type.js';

export class ResourceRegistry {
  private readonly byGVR = new Map<string, ResourceType>();
  private readonly listeners = new Set<() => void>();
  private generation = 0;

  /** Adds or replaces the types of one source (a CRD name or 'builtin'). */
  replaceSource(sourceKey: string, types: ResourceType[]): void {
    for (const [key, rt] of this.byGVR) {
      if (sourceKeyOf(rt) === sourceKey) this.byGVR.delete(key);
    }
    for (const rt of types) this.byGVR.set(gvrKey(rt.group, rt.version, rt.resource), rt);
    this.changed();
  }

  removeSource(sourceKey: string): void {
    this.replaceSource(sourceKey, []);
  }

  get(group: string, version: string, resource: string): ResourceType | undefined {
    return this.byGVR.get(gvrKey(group, version, resource));
  }

  /** Any served version of group/resource (storage is shared across versions). */
  anyVersion(group: string, resource: string): ResourceType | undefined {
    for (const rt of this.byGVR.values()) if (rt.group === group && rt.resource === resource) return rt;
    return undefined;
  }

  byKind(group: string, version: string, kind: string): ResourceType | undefined {
    for (const rt of this.byGVR.values()) {
      if (rt.group === group && rt.version === version && rt.kind === kind) return rt;
    }
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.byGVR.values()];
  }

  /** A number that changes whenever the served set changes. */
  version(): number {
    return this.generation;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.generation++;
    for (const l of this.listeners) l();
  }
}

export function sourceKeyOf(rt: ResourceType): string {
  return rt.source.type === 'crd' ? `crd:${rt.source.crdName}` : 'builtin';
}

function gvrKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
