/**
 * Admission runs after authentication and authorization and before storage: mutating
 * plugins may change the object, validating plugins may only reject it. Quotas, policies and
 * defaults of later issues are admission plugins.
 */
import type { KObject } from '../../machinery/object.js';
import type { ResourceType } from '../registry/resource-type.js';
import type { RequestContext } from '../rest/context.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  rt: ResourceType;
  namespace: string | undefined;
  name: string;
  subresource: string;
  /** The object being written (undefined for DELETE). */
  object: KObject | undefined;
  /** The stored object before the change (UPDATE and DELETE). */
  oldObject: KObject | undefined;
  dryRun: boolean;
  ctx: RequestContext;
}

/** A MutatingPlugin may change `attrs.object` in place or throw an ApiError to reject. */
export interface MutatingPlugin {
  readonly name: string;
  handles(attrs: AdmissionAttributes): boolean;
  admit(attrs: AdmissionAttributes): Promise<void> | void;
}

/** A ValidatingPlugin only inspects; it rejects by throwing an ApiError. */
export interface ValidatingPlugin {
  readonly name: string;
  handles(attrs: AdmissionAttributes): boolean;
  validate(attrs: AdmissionAttributes): Promise<void> | void;
}

export class AdmissionChain {
  private readonly mutating: MutatingPlugin[] = [];
  private readonly validating: ValidatingPlugin[] = [];

  addMutating(plugin: MutatingPlugin): this {
    this.mutating.push(plugin);
    return this;
  }

  addValidating(plugin: ValidatingPlugin): this {
    this.validating.push(plugin);
    return this;
  }

  /** Whether a mutating plugin will see this request (and may change `attrs.object` in place). */
  mutates(attrs: AdmissionAttributes): boolean {
    return this.mutating.some((p) => p.handles(attrs));
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.mutating) if (p.handles(attrs)) await p.admit(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.validating) if (p.handles(attrs)) await p.validate(attrs);
  }
}
