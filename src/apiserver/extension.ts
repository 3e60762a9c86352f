/**
 * What whoever assembles the server (Conductor's composition root, `src/conductor`) adds to
 * it: admission plugins, what RBAC's built-in roles know of claim and concrete kinds, and what
 * runs beside the server. The API server itself knows nothing of claims, providers or
 * controllers; all of that reaches it through a ServerExtension.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/types.js';
import type { MetricsRegistry } from '../metrics/index.js';
import type { MutatingPlugin, ValidatingPlugin } from './admission/types.js';
import type { RbacKinds } from './authz/index.js';
import type { ReadSubresource } from './http/dispatcher.js';
import type { LoopbackClient } from './loopback-client.js';
import type { ResourceRegistry } from './registry/registry.js';
import type { ObjectStore } from './storage/object-store.js';

/** The server's parts an extension is built from, before any request is served. */
export interface ServerParts {
  /** Objects in the store, decoded (what admission plugins read). */
  objects: ObjectStore;
  registry: ResourceRegistry;
  /** The store (Secrets encrypted), for caches over a key prefix. */
  store: Store;
  logger: Logger;
}

/** What the extension's start hooks get. */
export interface StartContext {
  /** A loopback client with full rights (system:masters). */
  client: LoopbackClient;
  /** The served types; a controller's catalog. */
  registry: ResourceRegistry;
  logger: Logger;
  /** Aborted when the server starts closing. */
  signal: AbortSignal;
  /** The server's metrics registry (`/metrics`): what runs beside the server adds its series here. */
  metrics: MetricsRegistry;
}

export interface ServerExtension {
  /** Mutating admission plugins, run in this order on every write. */
  mutating?: readonly MutatingPlugin[];
  /** Validating admission plugins, run after the server's NamespaceLifecycle and before RBAC's own checks. */
  validating?: readonly ValidatingPlugin[];
  /** Subresources read as a stream, e.g. `log` on concrete kinds (Conductor: `conductor/log-subresource.ts`). */
  readSubresources?: readonly ReadSubresource[];
  /** What RBAC's built-in roles grant on claim and concrete kinds; without it they name none. */
  rbac?: RbacKinds;
  /**
   * Runs once the loopback client exists, before RBAC's policy is reconciled and before the
   * server listens; a rejection fails the start. (Conductor: core controllers, CRD installation.)
   */
  beforeReady?(ctx: StartContext): Promise<void>;
  /** Started in the background once the server is ready; awaited on close before `stop`. (Conductor: its controllers.) */
  afterReady?(ctx: StartContext): Promise<void>;
  /** Stops what the hooks started; called on close once the listener closed and every watch ended. */
  stop?(): Promise<void>;
}

/** Builds the extension from the server's parts (see ServerOptions.extend). */
export type ServerExtender = (parts: ServerParts) => ServerExtension | Promise<ServerExtension>;
