/**
 * The two listener kinds as the provider SPI sees them. One external client serves both;
 * the engine behind its Listeners supervisor differs (the shipped proxy or haproxy).
 *
 * A listener forwards only while it is bound (spec.claimRef set): an unbound listener keeps
 * its port but has no backends. So Recycle ("reset targets") empties the running listener,
 * and it stays empty until the next claim binds it; Retain keeps it forwarding; Delete stops
 * the process and removes its directory.
 */
import type { JsonObject } from '../../../machinery/object.js';
import type { CallOptions, ConcreteKind, Connector, DiscoveredResource, ExternalObservation } from '../../spi.js';
import { describeResource, resourceIdentity } from '../process/instance-names.js';
import { DedicatedInstanceClient, discoverServers, watchServerExits } from '../process/dedicated-instance.js';
import { formatLoadBalancerConnection, listenerDetails } from './connection.js';
import { haproxyLoadBalancerKind, loadBalancerClaim, loadBalancerSecretKeys, localPortForwarderKind, type LocalListener } from './kinds.js';
import { kindNames } from '../../kind-definition.js';
import type { DesiredListener, Listeners } from './listeners.js';
import { configureListener, listenerMatcher } from './matchers.js';
import { formatBackend, refusedByResolution, resolveTargets, type Lookup } from './targets.js';

/** The kinds this module builds. */
export type ListenerKindName = 'LocalPortForwarder' | 'HAProxyLoadBalancer';

const identity = (kind: string, resource: LocalListener) => resourceIdentity(kind, resource, 'its listener');

/** isBound says whether a listener has a claim (and so forwards to its targets). */
export function isBound(resource: LocalListener): boolean {
  return typeof resource.spec.claimRef?.name === 'string' && resource.spec.claimRef.name !== '';
}

/**
 * A ListenerClient manages the listeners of one kind: a listener directory per resource, like
 * a dedicated server's (create, update, delete and discover come from DedicatedInstanceClient).
 */
export class ListenerClient extends DedicatedInstanceClient<LocalListener, Listeners> {
  constructor(
    kind: ListenerKindName,
    listeners: Listeners,
    private readonly lookup?: Lookup,
  ) {
    super(listeners, kind, 'its listener');
  }

  private describe(resource: LocalListener): string {
    return describeResource(this.kind, resource);
  }

  /** desired is what the listener should serve: its targets while bound, nothing otherwise. */
  desired(resource: LocalListener, forward = isBound(resource)): { listener: DesiredListener; unsupported: string[]; refused: string[] } {
    const allowLinkLocal = resource.spec.allowLinkLocalTargets === true;
    const resolved = resolveTargets(resource.spec.targets, { allowLinkLocal });
    return {
      listener: {
        ...identity(this.kind, resource),
        ...(resource.spec.port !== undefined ? { preferredPort: resource.spec.port } : {}),
        protocol: resource.spec.protocol ?? 'TCP',
        backends: forward ? resolved.backends : [],
        ...(allowLinkLocal ? { allowLinkLocal } : {}),
      },
      unsupported: resolved.unsupported,
      refused: resolved.refused,
    };
  }

  /**
   * refuse throws, before any file is written, when a target is not `host:port` by the strict
   * grammar or is (or resolves to) a link-local or metadata address the spec does not allow.
   */
  private async refuse(resource: LocalListener, listener: DesiredListener, refused: string[]): Promise<void> {
    const all = [...refused, ...(listener.allowLinkLocal ? [] : await refusedByResolution(listener.backends, this.lookup))];
    if (all.length > 0) throw new Error(`${this.describe(resource)}: refusing to configure the listener: ${all.join('; ')}`);
  }

  async observe(resource: LocalListener): Promise<ExternalObservation> {
    const dir = this.dir(resource);
    const status = await this.servers.status(dir);
    if (!status.provisioned || !status.state) return { exists: false, upToDate: false };
    const { listener, unsupported, refused } = this.desired(resource);
    const port = status.state.port;
    const atProvider: JsonObject = {
      running: status.running,
      address: this.servers.address,
      port,
      ...(status.pid !== undefined ? { pid: status.pid } : {}),
      backends: listener.backends.map(formatBackend),
      ...(unsupported.length > 0 ? { unsupportedTargets: unsupported } : {}),
      ...(refused.length > 0 ? { refusedTargets: refused } : {}),
      forwarding: isBound(resource),
      directory: dir,
      logFile: this.servers.logFile(dir),
    };
    if (!status.running) return { exists: true, upToDate: false, atProvider, drift: `the ${this.servers.engine.server} process is not running` };
    if (!status.accepting) {
      return {
        exists: true,
        upToDate: false,
        atProvider,
        drift: `the ${this.servers.engine.server} process (pid ${status.pid}) does not accept connections on port ${port}`,
      };
    }
    if (refused.length > 0) {
      return { exists: true, upToDate: false, atProvider, drift: `the spec names targets the listener refuses: ${refused.join('; ')}` };
    }
    if (status.state.appliedHash !== this.servers.desiredHash(listener, port)) {
      return {
        exists: true,
        upToDate: false,
        atProvider,
        drift: `the ${this.servers.engine.server} serves another config than the spec asks for (targets or protocol changed)`,
      };
    }
    return { exists: true, upToDate: true, atProvider, connectionDetails: listenerDetails(this.servers.address, port) };
  }

  protected async ensure(resource: LocalListener, signal?: AbortSignal) {
    const { listener, refused } = this.desired(resource);
    await this.refuse(resource, listener, refused);
    const dir = this.dir(resource);
    const { port } = await this.servers.ensure(dir, listener, signal);
    return { dir, details: listenerDetails(this.servers.address, port) };
  }

  /** scrub resets the targets: the listener keeps its port and forwards nowhere (its old connections close). */
  async scrub(resource: LocalListener, options?: CallOptions): Promise<void> {
    const { listener } = this.desired(resource, false);
    await this.servers.ensure(this.dir(resource), listener, options?.signal);
  }

  /** discover lists the listener directories on this machine. */
  override async discover(): Promise<DiscoveredResource[]> {
    return discoverServers(this.servers, (dir, state) => ({ directory: dir, port: state.port }));
  }
}

/** What builds one listener kind. */
export interface ListenerKindOptions {
  kind: ListenerKindName;
  /** The supervisor of its processes; undefined when the kind cannot work here. */
  listeners: Listeners | undefined;
  /** Why it cannot work here, when it cannot (e.g. no haproxy binary). */
  unavailable?: string;
}

const definitions = {
  LocalPortForwarder: localPortForwarderKind,
  HAProxyLoadBalancer: haproxyLoadBalancerKind,
} satisfies Record<ListenerKindName, unknown>;

/**
 * listenerConcreteKind builds a listener kind around its supervisor. Without one the kind stays
 * registered: its matcher says why it does not fit and its connector why it cannot connect.
 */
export function listenerConcreteKind(options: ListenerKindOptions): ConcreteKind<LocalListener> {
  const { kind, listeners } = options;
  const unavailable = listeners ? undefined : (options.unavailable ?? 'no listener supervisor');
  const connector: Connector<LocalListener> = {
    async connect() {
      if (!listeners) throw new Error(`${kind} is unavailable on this machine: ${unavailable}`);
      return new ListenerClient(kind, listeners);
    },
  };
  return {
    ...kindNames(definitions[kind]),
    deterministicExternalNames: true,
    implements: [
      {
        claimKind: loadBalancerClaim,
        connectionSecretKeys: loadBalancerSecretKeys,
        match: listenerMatcher({ kind, strictProtocol: kind === 'HAProxyLoadBalancer', ...(unavailable ? { unavailable } : {}) }),
        configure: configureListener,
        formatConnection: formatLoadBalancerConnection,
      },
    ],
    connector,
    watch: watchServerExits(listeners),
    ...(listeners ? { logRoot: listeners.root } : {}),
  };
}
