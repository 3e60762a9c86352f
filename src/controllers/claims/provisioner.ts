/**
 * A Provisioner creates a concrete resource for a claim when a ResourceClass wins (docs/design.md
 * 3.6 point 1): the class's template, configured for the claim by the provider that
 * implements the claim kind, named deterministically from the claim (so a retry after a crash
 * finds it instead of making a second one), pre-bound to the claim, labelled with its class
 * and claim, and created in the system namespace whatever the class's namespace.
 */
import type { Client } from '../../client/types.js';
import { isApiError } from '../../machinery/errors.js';
import { parseApiVersion, type KObject } from '../../machinery/object.js';
import type { Claim, ConcreteResource, ResourceClass } from '../../apis/index.js';
import { MANAGED_PROTECTION_FINALIZER } from '../../apis/well-known.js';
import { implementationFor, type ResourceTemplate } from '../../providers/spi.js';
import type { ClassCandidate } from '../../scheduler/index.js';
import { recordEvent } from '../events.js';
import type { ClaimCaches, ClaimKindEntry, ConcreteKindEntry } from './claim-caches.js';
import { kindKey } from './claim-caches.js';
import { claimRefOf } from './claim-status.js';
import { CLAIM_NAME_LABEL, CLAIM_NAMESPACE_LABEL, CLASS_LABEL, classLabelValue } from './labels.js';
import { provisionedName } from './names.js';
import { ClaimReason, FIELD_MANAGER } from './reasons.js';

/** What provisioning for a claim came to. */
export type ProvisionOutcome =
  /**
   * Made now. `from` says so for the claim's Bound event (`provisioned from class ns/name`):
   * the binding follows at once, so one event tells both; `event` records it on its own when
   * the binding does not follow.
   */
  | { readonly type: 'created'; readonly entry: ConcreteKindEntry; readonly resource: ConcreteResource; readonly from: string; event(): Promise<void> }
  /** Made by an earlier attempt: the claim-uid index finds it next time. */
  | { readonly type: 'exists' }
  /** The class is no longer in the cache. */
  | { readonly type: 'class-gone' }
  /** The class's template names a kind no installed provider manages; `why` is for the claim. */
  | { readonly type: 'kind-not-served'; readonly why: string };

/** What a Provisioner works with. */
export interface ProvisionerDeps {
  readonly client: Client;
  readonly caches: ClaimCaches;
  /** Where provisioned resources live (their Secrets beside them). */
  readonly systemNamespace: string;
}

export class Provisioner {
  constructor(private readonly deps: ProvisionerDeps) {}

  /** provision creates the class's resource for the claim, pre-bound to it. */
  async provision(entry: ClaimKindEntry, claim: Claim, cand: ClassCandidate): Promise<ProvisionOutcome> {
    const cls = this.deps.caches.classes.store.get(cand.namespace, cand.name);
    if (!cls) return { type: 'class-gone' };
    const template = cls.template;
    const concrete = this.deps.caches.concretes.get(kindKey(parseApiVersion(template.apiVersion ?? '').group, template.kind ?? ''));
    if (!concrete) {
      return {
        type: 'kind-not-served',
        why: `class ${cand.namespace}/${cand.name} provisions ${template.kind ?? '<no kind>'}, which no installed provider manages`,
      };
    }
    const obj = this.resourceFor(entry, claim, cls, concrete, cand.target === undefined ? undefined : { name: cand.target, region: cand.capabilities.region });
    try {
      // What the API server answers is the resource with its defaults, valid by its kind's schema.
      const created = (await this.deps.client.create(concrete.ref, obj, { fieldManager: FIELD_MANAGER })) as ConcreteResource;
      const from = `class ${cand.namespace}/${cand.name}`;
      const event = () =>
        recordEvent(
          this.deps.client,
          claim,
          'Normal',
          ClaimReason.Provisioning,
          `provisioning ${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name} from ${from}`,
        );
      return { type: 'created', entry: concrete, resource: created, from: `provisioned from ${from}`, event };
    } catch (err) {
      if (!(isApiError(err) && err.reason === 'AlreadyExists')) throw err;
      return { type: 'exists' };
    }
  }

  /**
   * resourceFor is the resource to create: the template's spec configured by the provider's
   * implementation of the claim kind (the template's spec as it is when the kind implements
   * none), then the common concrete fields from the claim and class — and, for a class placed
   * on a `target` Provider, that Provider and its region.
   */
  resourceFor(
    entry: ClaimKindEntry,
    claim: Claim,
    cls: ResourceClass,
    concrete: ConcreteKindEntry,
    target?: { name: string; region?: string | undefined },
  ): KObject {
    const region = cls.capabilities?.region ?? target?.region;
    const capabilities = cls.capabilities || region !== undefined ? { ...(cls.capabilities ?? {}), ...(region === undefined ? {} : { region }) } : undefined;
    const template = cls.template;
    const impl = implementationFor(concrete.kind, { group: entry.def.group, kind: entry.def.kind });
    const asTemplate: ResourceTemplate = { apiVersion: template.apiVersion, kind: template.kind, metadata: template.metadata, spec: template.spec ?? {} };
    const configured = impl ? impl.configure(claim, asTemplate) : (template.spec ?? {});
    return {
      apiVersion: template.apiVersion,
      kind: template.kind,
      metadata: {
        name: provisionedName(claim),
        // Never the class's namespace: a resource's connection and binding Secrets live beside
        // it, and a class may sit in a tenant's namespace. Providers are read from here too.
        namespace: this.deps.systemNamespace,
        labels: {
          ...(template.metadata?.labels ?? {}),
          [CLASS_LABEL]: classLabelValue(cls.metadata.namespace ?? '', cls.metadata.name ?? ''),
          [CLAIM_NAMESPACE_LABEL]: claim.metadata.namespace!,
          [CLAIM_NAME_LABEL]: claim.metadata.name!,
        },
        ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
        // A kind reconciled in this process gets the managed reconciler's finalizer at birth:
        // one write less per resource, and it is there before any provider call as that
        // reconciler requires. (An out-of-process provider manages its own finalizers.)
        ...(concrete.outOfProcess ? {} : { finalizers: [MANAGED_PROTECTION_FINALIZER] }),
      },
      spec: {
        ...configured,
        claimRef: claimRefOf(claim),
        rebindPolicy: cls.rebindPolicy ?? 'Delete',
        resourceClass: cls.resourceClass ?? cls.metadata.name,
        // A class naming no Provider, placed on one by the scheduler, names it here.
        ...(cls.providerRef ? { providerRef: cls.providerRef } : target !== undefined ? { providerRef: { name: target.name } } : {}),
        ...(capabilities ? { capabilities } : {}),
      },
    };
  }
}
