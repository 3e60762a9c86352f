/**
 * What the external clients of the dedicated-server kinds (LocalPostgreSQLInstance,
 * LocalMySQLInstance, LocalRedisInstance, and the two listener kinds) do alike: one server directory per resource, found
 * from its namespace and name; create and update both converge the server (`ensure`);
 * delete stops it and removes its directory; discover lists the directories there are. Each
 * kind adds how it observes, ensures and scrubs its own server.
 */
import { basename } from 'node:path';
import type { JsonObject, KObject } from '../../../machinery/object.js';
import type { CallOptions, ConnectionDetails, DiscoveredResource, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../../spi.js';
import { resourceIdentity } from './instance-names.js';

/** The part of a supervisor a dedicated-instance client uses. */
export interface InstanceDirectories<S extends InstanceStateBase> {
  dirFor(namespace: string, name: string): string;
  remove(dir: string): Promise<void>;
  list(): Promise<{ dir: string; state: S }[]>;
}

/** What every dedicated server keeps in its state file. */
export interface InstanceStateBase {
  namespace: string;
  name: string;
  port: number;
}

export abstract class DedicatedInstanceClient<R extends KObject, V extends InstanceDirectories<InstanceStateBase>> implements ExternalClient<R> {
  constructor(
    protected readonly servers: V,
    /** The kind's name, for messages. */
    protected readonly kind: string,
    /** What a resource's namespace and name place, for the message when either is missing. */
    private readonly places = 'its data',
  ) {}

  abstract observe(resource: R, options?: CallOptions): Promise<ExternalObservation>;

  /**
   * ensure makes the server exist, run and match the resource; it returns its directory and
   * the claim's details. When `signal` aborts it stops waiting and kills a server it started.
   */
  protected abstract ensure(resource: R, signal?: AbortSignal): Promise<{ dir: string; details: ConnectionDetails }>;

  /** dir is the resource's server directory. */
  protected dir(resource: R): string {
    const { namespace, name } = resourceIdentity(this.kind, resource, this.places);
    return this.servers.dirFor(namespace, name);
  }

  async create(resource: R, options?: CallOptions): Promise<ExternalCreation> {
    const { dir, details } = await this.ensure(resource, options?.signal);
    return { externalName: basename(dir), connectionDetails: details };
  }

  async update(resource: R, options?: CallOptions): Promise<ExternalUpdate> {
    const { details } = await this.ensure(resource, options?.signal);
    return { connectionDetails: details };
  }

  async delete(resource: R): Promise<void> {
    await this.servers.remove(this.dir(resource));
  }

  /** discover lists the instance directories on this machine. */
  async discover(): Promise<DiscoveredResource[]> {
    return discoverServers(this.servers);
  }
}

/**
 * discoverServers lists a supervisor's server directories as discovered resources: each one's
 * directory name as its external name, the namespace, name and port its state recorded, and
 * `atProvider` (by default the directory).
 */
export async function discoverServers<S extends InstanceStateBase>(
  servers: Pick<InstanceDirectories<S>, 'list'>,
  atProvider: (dir: string, state: S) => JsonObject = (dir) => ({ directory: dir }),
): Promise<DiscoveredResource[]> {
  return (await servers.list()).map(({ dir, state }) => ({
    externalName: basename(dir),
    namespace: state.namespace,
    name: state.name,
    spec: { port: state.port },
    atProvider: atProvider(dir, state),
  }));
}

/** The part of a supervisor `watchServerExits` uses. */
export interface ExitingServers {
  onServerExit(listener: (dir: string) => void): void;
  readState(dir: string): Promise<{ namespace?: string; name?: string } | undefined>;
}

/**
 * watchServerExits returns a kind's `watch`: when a server of `servers` exits, the resource
 * its directory belongs to (the namespace and name its state recorded) is told `changed`.
 */
export function watchServerExits(servers: ExitingServers | undefined): ((changed: (namespace: string, name: string) => void) => void) | undefined {
  if (!servers) return undefined;
  return (changed) =>
    servers.onServerExit((dir) => {
      void servers.readState(dir).then(
        (state) => {
          if (state?.namespace && state.name) changed(state.namespace, state.name);
        },
        () => {}, // no readable state: nothing to reconcile
      );
    });
}
