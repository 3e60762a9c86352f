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
  type ProviderType,
} from '../../providers/spi.js';
import { connectContext, connectRedacted, decodeSecretData, ProviderNotFoundError } from '../managed/connect-context.js';
import { deadlineClient, withDeadline, type DeadlineOptions } from '../managed/call-deadline.js';
import { managedReconcilerDefaults } from '../managed/reconciler-options.js';
import type { ProviderCallMetrics } from '../metrics.js';

/** ProviderAccessOptions bound the provider calls made through a ProviderAccess. */
export interface ProviderAccessOptions {
  /** How long one provider call may take before it is cancelled; default the managed reconciler's (5 min). */
  callTimeoutMs?: number;
  /** Aborted on shutdown: cancels every provider call still running. */
  shutdown?: AbortSignal;
  /** Where provider calls are reported (metrics). */
  metrics?: ProviderCallMetrics;
}

/**
 * What connectForRelease found: a connected client, or (`unreachable`) the Provider the
 * resource names does not exist and the provider could not be reached without it either.
 */
export type ReleaseConnection = { readonly external: ExternalClient } | { readonly unreachable: ProviderNotFoundError; readonly cause: unknown };

export class ProviderAccess {
  private readonly kinds: ConcreteKind[];

  private readonly deadlines: DeadlineOptions;

  /** The provider type of each kind whose provider-less classes are placed across that type's Providers, by `group/Kind`. */
  private readonly placedTypes = new Map<string, ProviderType>();

  constructor(
    private readonly client: Client,
    providers: readonly ProviderModule[],
    options: ProviderAccessOptions = {},
  ) {
    this.kinds = providers.flatMap((p) => [...p.kinds]);
    for (const p of providers) if (p.placedAcrossProviders === true) for (const k of p.kinds) this.placedTypes.set(`${k.group}/${k.kind}`, p.type);
    const providerOf = new Map<string, string>();
    for (const p of providers) for (const k of p.kinds) providerOf.set(k.kind, p.type);
    const metrics = options.metrics;
    this.deadlines = {
      timeoutMs: options.callTimeoutMs ?? managedReconcilerDefaults.callTimeoutMs,
      ...(options.shutdown ? { shutdown: options.shutdown } : {}),
      ...(metrics ? { report: (call, result, seconds) => metrics.called(providerOf.get(call.kind) ?? 'unknown', call.kind, call.op, result, seconds) } : {}),
    };
  }

  /** connectWithDeadline connects with a deadline; every call of the client returned gets one too (a signal aborted at it). */
  private async connectWithDeadline(kind: ConcreteKind, resource: KObject, providerName: string | undefined): Promise<ExternalClient> {
    const context = await connectContext(this.client, kind, resource, providerName);
    const external = await withDeadline({ op: 'connect', kind: kind.kind, resource }, this.deadlines, (signal) =>
      connectRedacted(kind, resource, { ...context, signal }),
    );
    return deadlineClient(external, kind.kind, this.deadlines);
  }

  /** placedAcross is the provider type whose Providers a class of this kind naming none is placed across (ProviderModule.placedAcrossProviders). */
  placedAcross(group: string, kind: string): ProviderType | undefined {
    return this.placedTypes.get(`${group}/${kind}`);
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
    return this.connectWithDeadline(kind, resource, providerRef?.name || undefined);
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
        return { external: await this.connectWithDeadline(kind, resource, undefined) };
      } catch (fallbackErr) {
        return { unreachable: err, cause: fallbackErr };
      }
    }
  }
}

export { decodeSecretData };
