/**
 * What the claim controller needs from providers: which concrete kind implements a claim
 * kind (and how), and a connected external client for a resource (credentials read from the
 * Secret the kind names).
 */
import type { Client } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import {
  implementationFor,
  type ClaimImplementation,
  type ConcreteKind,
  type ExternalClient,
  type GroupKind,
  type ProviderModule,
} from '../../providers/spi.js';
import { findKind } from '../../apis/index.js';
import { connectContext, connectRedacted, decodeSecretData } from '../managed/connect-context.js';

export class ProviderAccess {
  private readonly kinds: ConcreteKind[];

  constructor(
    private readonly client: Client,
    providers: readonly ProviderModule[],
  ) {
    this.kinds = providers.flatMap((p) => [...p.kinds]);
  }

  concreteKinds(): readonly ConcreteKind[] {
    return this.kinds;
  }

  kindOf(group: string, kind: string): ConcreteKind | undefined {
    return this.kinds.find((k) => k.group === group && k.kind === kind);
  }

  implementation(resourceGroup: string, resourceKind: string, claimKind: GroupKind): ClaimImplementation | undefined {
    const k = this.kindOf(resourceGroup, resourceKind);
    return k ? implementationFor(k, claimKind) : undefined;
  }

  /** Connects to the external system behind `resource` with its provider and credentials. */
  async connect(kind: ConcreteKind, resource: KObject): Promise<ExternalClient> {
    const spec = isPlainObject(resource.spec) ? resource.spec : {};
    const providerRef = isPlainObject(spec.providerRef) ? (spec.providerRef as { name?: string }) : undefined;
    return connectRedacted(kind, resource, await connectContext(this.client, kind, resource, providerRef?.name || undefined));
  }

  /** The Client handle on a concrete resource's kind. */
  static refOf(apiVersion: string, kind: string) {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    return findKind(group, kind)?.ref;
  }
}

export { decodeSecretData };
