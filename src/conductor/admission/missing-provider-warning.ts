/**
 * MissingProviderWarning: a ResourceClass or a concrete resource whose `providerRef` names no
 * Provider is accepted (the Provider may well be created next, as `kubectl apply -f dir/`
 * does in any order), but nothing made from it can become ready until the Provider exists,
 * and the cause would show only on the concrete resource, which developers cannot read. So
 * a create or update that names a missing Provider is answered with a warning (kubectl
 * prints `Warning: …`) naming it and where it was looked for.
 *
 * A Provider is looked for in the object's own namespace (where the resources made from it
 * connect through it) and in conductor-system (the Providers' home).
 */
import { apiRefs, MANAGED_CATEGORY } from '../../apis/index.js';
import { isPlainObject } from '../../machinery/object.js';
import type { ObjectStore } from '../../apiserver/storage/object-store.js';
import type { ResourceRegistry } from '../../apiserver/registry/registry.js';
import type { AdmissionAttributes, ValidatingPlugin } from '../../apiserver/admission/types.js';
import { SYSTEM_NAMESPACE } from '../../apiserver/admission/namespace-lifecycle.js';

const CLASSES = apiRefs.resourceclasses;
const PROVIDERS = apiRefs.providers;

/** The warning for a `providerRef` that names no Provider. */
export function missingProviderWarning(what: string, field: string, provider: string, namespaces: string[]): string {
  const where = namespaces.map((n) => `"${n}"`).join(' or ');
  return `${field} names Provider "${provider}", which does not exist in namespace ${where}: ${what} cannot become ready until that Provider is created`;
}

export class MissingProviderWarning implements ValidatingPlugin {
  readonly name = 'MissingProviderWarning';

  constructor(
    private readonly objects: ObjectStore,
    private readonly registry: ResourceRegistry,
  ) {}

  handles(attrs: AdmissionAttributes): boolean {
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return false;
    if (attrs.subresource !== '' || !isPlainObject(attrs.object)) return false;
    if (attrs.rt.group === CLASSES.group && attrs.rt.resource === CLASSES.resource) return true;
    return attrs.rt.categories.includes(MANAGED_CATEGORY);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const obj = attrs.object!;
    const isClass = attrs.rt.group === CLASSES.group && attrs.rt.resource === CLASSES.resource;
    // A class names its Provider at the top level; a concrete resource in its spec.
    const holder = isClass ? obj : isPlainObject(obj.spec) ? obj.spec : {};
    const ref = holder['providerRef'];
    const name = isPlainObject(ref) && typeof ref['name'] === 'string' ? ref['name'] : '';
    if (name === '') return;
    const providers = this.registry.anyVersion(PROVIDERS.group, PROVIDERS.resource);
    if (!providers) return;
    const namespaces = [...new Set([attrs.namespace ?? SYSTEM_NAMESPACE, SYSTEM_NAMESPACE])];
    for (const ns of namespaces) if (await this.objects.get(providers, ns, name)) return;
    const what = isClass ? 'resources provisioned from this class' : 'this resource';
    attrs.ctx.warnings.push(missingProviderWarning(what, isClass ? 'providerRef' : 'spec.providerRef', name, namespaces));
  }
}
