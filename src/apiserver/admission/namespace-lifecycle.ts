/**
 * NamespaceLifecycle rejects new objects in namespaces that do not exist or are being
 * deleted, and protects the system namespaces from deletion — by anyone, system:masters
 * included, and for dry runs too (a dry run answers what the real request would).
 */
import { ApiError, errors } from '../../machinery/errors.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { PrefixCache } from '../storage/prefix-cache.js';
import type { ResourceRegistry } from '../registry/registry.js';
import type { AdmissionAttributes, ValidatingPlugin } from './types.js';

/** The namespace every class, Provider and provider credential lives in. */
export const SYSTEM_NAMESPACE = 'conductor-system';

/**
 * The namespaces the server creates at start and nobody may delete: Kubernetes' own and
 * conductor-system (deleting it would delete every class, Provider and their credentials).
 */
export const PROTECTED_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease', SYSTEM_NAMESPACE];

/** What the plugin keeps of each namespace. */
export interface NamespaceState {
  terminating: boolean;
}

/** The projection of a stored Namespace that a PrefixCache of namespaces keeps for this plugin. */
export function namespaceState(kv: { value: string }): NamespaceState {
  const obj = JSON.parse(kv.value) as { metadata?: { deletionTimestamp?: string } };
  return { terminating: !!obj.metadata?.deletionTimestamp };
}

export class NamespaceLifecycle implements ValidatingPlugin {
  readonly name = 'NamespaceLifecycle';

  constructor(
    private readonly objects: ObjectStore,
    private readonly registry: ResourceRegistry,
    /** Namespaces kept in memory (`/registry/core/namespaces/`); a miss is read from the store. */
    private readonly namespaces?: PrefixCache<NamespaceState>,
  ) {}

  handles(attrs: AdmissionAttributes): boolean {
    if (attrs.rt.group === '' && attrs.rt.resource === 'namespaces') return attrs.operation === 'DELETE';
    return attrs.rt.namespaced && attrs.operation === 'CREATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation === 'DELETE') {
      if (PROTECTED_NAMESPACES.includes(attrs.name)) {
        const why = attrs.name === SYSTEM_NAMESPACE ? ' (it holds the classes, Providers and provider credentials)' : '';
        throw errors.forbidden(
          `namespaces "${attrs.name}" is forbidden: ${attrs.name} is a system namespace${why} and may not be deleted`,
          { group: '', resource: 'namespaces' },
          attrs.name,
        );
      }
      return;
    }
    const nsType = this.registry.get('', 'v1', 'namespaces')!;
    const ns = attrs.namespace!;
    let state = this.namespaces?.get(ns);
    if (!state) {
      const found = await this.objects.get(nsType, undefined, ns);
      if (!found) throw errors.notFound(nsType, ns);
      state = { terminating: !!found.obj.metadata.deletionTimestamp };
    }
    if (state.terminating) {
      throw new ApiError(
        403,
        'Forbidden',
        `${attrs.rt.resource}${attrs.rt.group ? '.' + attrs.rt.group : ''} "${attrs.name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        {
          name: attrs.name,
          group: attrs.rt.group,
          kind: attrs.rt.resource,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }],
        },
      );
    }
  }
}
