/**
 * The concrete (managed) resource types the registry serves, one per group/resource: several
 * served versions of a kind share one storage, so listing each of them once is enough.
 */
import { MANAGED_CATEGORY } from '../../apis/index.js';
import type { ResourceRegistry } from '../../apiserver/registry/registry.js';
import type { ResourceType } from '../../apiserver/registry/resource-type.js';

export function concreteResourceTypes(registry: ResourceRegistry): ResourceType[] {
  const out: ResourceType[] = [];
  const seen = new Set<string>();
  for (const rt of registry.all()) {
    if (!rt.namespaced || !rt.categories.includes(MANAGED_CATEGORY)) continue;
    const key = `${rt.group}/${rt.resource}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(rt);
  }
  return out;
}
