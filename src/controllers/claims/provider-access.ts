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
import { connectContext, connectRedacted, decodeSecretData, ProviderNotFoundError } from '../managed/connect-context.js';

/**
 * What connectForRelease found: a connected client, or (`unreachable`) the Provider the
 * resource names does not exist and the provider could not be reached without it either.
 */
export type ReleaseConnection = { readonly external: ExternalClient } | { readonly unreachable: ProviderNotFoundError; readonly cause: unknown };

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

  /**
   * connectForRelease connects for undoing a claim's binding. A Provider that does not exist
   * never blocks a release: the connector is tried without it, and when that fails too the
   * answer is `unreachable` (the caller lets the claim go and says what may be left). Every
   * other failure is thrown — a missing credentials Secret (a CredentialsNotFoundError)
   * included: restoring it lets the release finish, as for a managed resource's deletion.
   */
  async connectForRelease(kind: ConcreteKind, resource: KObject): Promise<ReleaseConnection> {
    try {
      return { external: await this.connect(kind, resource) };
    } catch (err) {
      if (!(err instanceof ProviderNotFoundError)) throw err;
      try {
        return { external: await connectRedacted(kind, resource, await connectContext(this.client, kind, resource, undefined)) };
      } catch (fallbackErr) {
        return { unreachable: err, cause: fallbackErr };
      }
    }
  }

}

export { decodeSecretData };
