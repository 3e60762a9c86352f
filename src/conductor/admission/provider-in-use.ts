/**
 * ProviderInUse refuses to delete a Provider while concrete resources still name it in
 * `spec.providerRef`: their finalizers need the Provider (and its credentials) to release
 * what they hold, so deleting it first would leave them stuck. The refusal is a 409 naming a
 * few of the resources; delete them (or point them elsewhere) and try again.
 */
import { errors } from '../../machinery/errors.js';
import { isPlainObject } from '../../machinery/object.js';
import type { ObjectStore } from '../../apiserver/storage/object-store.js';
import type { ResourceRegistry } from '../../apiserver/registry/registry.js';
import type { AdmissionAttributes, ValidatingPlugin } from '../../apiserver/admission/types.js';
import { concreteResourceTypes } from './concrete-types.js';

const PROVIDER_GROUP = 'core.conductor.io';
/** How many users the message names before it sums up the rest. */
const NAMED = 5;

export class ProviderInUse implements ValidatingPlugin {
  readonly name = 'ProviderInUse';

  constructor(
    private readonly objects: ObjectStore,
    private readonly registry: ResourceRegistry,
  ) {}

  handles(attrs: AdmissionAttributes): boolean {
    return attrs.operation === 'DELETE' && attrs.subresource === '' && attrs.rt.group === PROVIDER_GROUP && attrs.rt.resource === 'providers';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const users = await this.usersOf(attrs.namespace ?? '', attrs.name);
    if (users.length === 0) return;
    const named = users.slice(0, NAMED).join(', ');
    const more = users.length > NAMED ? ` and ${users.length - NAMED} more` : '';
    throw errors.conflict(
      { group: PROVIDER_GROUP, resource: 'providers' },
      attrs.name,
      `it is used by ${users.length} resource(s): ${named}${more}; delete them (or change their spec.providerRef) first`,
    );
  }

  /** The concrete resources in `namespace` whose spec.providerRef names `provider`, as `kind/name`. */
  private async usersOf(namespace: string, provider: string): Promise<string[]> {
    const users: string[] = [];
    for (const rt of concreteResourceTypes(this.registry)) {
      const listed = await this.objects.list(rt, namespace, {});
      for (const kv of listed.items) {
        const obj = this.objects.decode(rt, kv);
        const ref = isPlainObject(obj.spec) ? obj.spec['providerRef'] : undefined;
        if (isPlainObject(ref) && ref['name'] === provider) users.push(`${obj.kind}/${obj.metadata.name}`);
      }
    }
    return users;
  }
}
