/**
 * What the claim controller needs from providers: which concrete kind implements a claim
 * kind (and how), and a connected external client for a resource (credentials read from the
 * Secret the kind names).
 */
import type { Client } from '../../client/types.js';
import { builtinRefs } from '../../client/types.js';
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
import { apiRefs, findKind } from '../../apis/index.js';

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
    const ref = kind.credentialsSecretRef?.(resource);
    let credentials: Record<string, string> | undefined;
    if (ref) {
      const secret = await this.client.get(builtinRefs.secrets, ref.name, ref.namespace);
      credentials = decodeSecretData(secret);
    }
    let provider: KObject | undefined;
    const spec = isPlainObject(resource.spec) ? resource.spec : {};
    const providerRef = isPlainObject(spec.providerRef) ? (spec.providerRef as { name?: string }) : undefined;
    if (providerRef?.name) {
      try {
        provider = await this.client.get(apiRefs.providers, providerRef.name, resource.metadata.namespace);
      } catch {
        provider = undefined; // a missing Provider shows up as a connect error if it matters
      }
    }
    return kind.connector.connect(resource, { credentials, provider });
  }

  /** The Client handle on a concrete resource's kind. */
  static refOf(apiVersion: string, kind: string) {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    return findKind(group, kind)?.ref;
  }
}

export function decodeSecretData(secret: KObject): Record<string, string> {
  const data = isPlainObject(secret.data) ? (secret.data as Record<string, string>) : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) out[k] = Buffer.from(v, 'base64').toString('utf8');
  return out;
}
