/**
 * The Client is how every controller reaches the API: the same interface whether it runs
 * in the server's process (loopback: same validation and admission, no HTTP) or remotely
 * (HTTP against Conductor or a real Kubernetes cluster).
 */
import type { KObject, KList } from '../machinery/object.js';

/** Names a resource by group, version and plural resource name (`configmaps`). */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
  /** True for namespaced resources (needed to build paths). */
  namespaced: boolean;
  kind: string;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export const patchContentTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Events after this resourceVersion; '' or undefined starts with synthetic ADDED events for the current state. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Server-side timeout of the watch. */
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
  /**
   * The consumer never changes the objects it receives, so an in-process client may hand it
   * the object every watcher of the event shares instead of a copy of its own (the HTTPS
   * client ignores this: its objects are always its own).
   */
  readOnly?: boolean;
  /**
   * A hint for in-process clients: an ADDED event whose stored JSON text this returns true for
   * is not delivered (the consumer has no use for it), so it is never parsed. Only a consumer
   * for which such an event changes nothing may set it (the garbage collector: an object
   * created without owners and not being deleted). The HTTPS client ignores it.
   */
  skipAdded?: (json: string) => boolean;
}

export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

export interface PatchOptions extends WriteOptions {
  namespace?: string;
  /** Server-side apply: take ownership of conflicting fields. */
  force?: boolean;
  subresource?: 'status';
}

export interface DeleteOptions {
  namespace?: string;
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KObject = KObject> {
  type: WatchEventType;
  /** The object; for ERROR a Status; for BOOKMARK an object carrying only metadata.resourceVersion. */
  object: T;
}

export interface WatchHandle {
  /** Stops the watch; `onClose` is not called for a stop the caller asked for. */
  stop(): void;
}

export interface WatchHandlers<T extends KObject = KObject> {
  onEvent(event: WatchEvent<T>): void;
  /** The stream ended (server timeout, network error, or an error before the first event). */
  onClose(err?: Error): void;
}

/**
 * Errors thrown by every method are ApiError (machinery/errors) carrying the server's
 * Status; network failures are wrapped into ApiError 503 with the cause in the message.
 */
export interface Client {
  get<T extends KObject = KObject>(ref: ResourceRef, name: string, namespace?: string): Promise<T>;
  list<T extends KObject = KObject>(ref: ResourceRef, options?: ListOptions): Promise<KList<T>>;
  watch<T extends KObject = KObject>(ref: ResourceRef, options: WatchOptions, handlers: WatchHandlers<T>): WatchHandle;
  create<T extends KObject = KObject>(ref: ResourceRef, obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces the object (PUT); `obj.metadata.resourceVersion` makes it compare-and-swap. */
  update<T extends KObject = KObject>(ref: ResourceRef, obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces the status subresource (PUT .../status). */
  updateStatus<T extends KObject = KObject>(ref: ResourceRef, obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces another subresource (PUT .../<subresource>), e.g. a namespace's `finalize`. */
  updateSubresource<T extends KObject = KObject>(ref: ResourceRef, obj: T, subresource: string, options?: WriteOptions): Promise<T>;
  patch<T extends KObject = KObject>(ref: ResourceRef, name: string, type: PatchType, patch: unknown, options?: PatchOptions): Promise<T>;
  /** Returns the object as it was deleted, or with deletionTimestamp set when finalizers remain. */
  delete(ref: ResourceRef, name: string, options?: DeleteOptions): Promise<KObject>;
  deleteCollection(ref: ResourceRef, options?: ListOptions & DeleteOptions): Promise<void>;
}

/** Builds a ResourceRef from an apiVersion and kind known at compile time. */
export function resourceRef(apiVersion: string, kind: string, resource: string, namespaced: boolean): ResourceRef {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return { group, version, resource, namespaced, kind };
}

/** Well-known built-in resources. */
export const builtinRefs = {
  namespaces: resourceRef('v1', 'Namespace', 'namespaces', false),
  secrets: resourceRef('v1', 'Secret', 'secrets', true),
  configmaps: resourceRef('v1', 'ConfigMap', 'configmaps', true),
  events: resourceRef('v1', 'Event', 'events', true),
  serviceaccounts: resourceRef('v1', 'ServiceAccount', 'serviceaccounts', true),
  leases: resourceRef('coordination.k8s.io/v1', 'Lease', 'leases', true),
  customresourcedefinitions: resourceRef('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'customresourcedefinitions', false),
} as const;
