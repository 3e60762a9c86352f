/**
 * Request building for the Kubernetes REST protocol: resource paths and the query
 * parameters and bodies of each verb. Pure functions, so they are tested without a server.
 */
import type { DeleteOptions, ListOptions, PatchOptions, ResourceRef, WatchOptions, WriteOptions } from './types.js';

/** The path of a group-version: `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export function groupVersionPath(group: string, version: string): string {
  return group ? `/apis/${encodeURIComponent(group)}/${encodeURIComponent(version)}` : `/api/${encodeURIComponent(version)}`;
}

/**
 * The collection path of a resource. A namespaced resource with a namespace gets
 * `/namespaces/<ns>`; without one (or for a cluster-scoped resource) the path covers all
 * namespaces.
 */
export function collectionPath(ref: ResourceRef, namespace?: string): string {
  const base = groupVersionPath(ref.group, ref.version);
  const ns = ref.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${encodeURIComponent(ref.resource)}`;
}

/** The path of one object, optionally of its subresource (`status`). */
export function objectPath(ref: ResourceRef, namespace: string | undefined, name: string, subresource?: string): string {
  const sub = subresource ? `/${encodeURIComponent(subresource)}` : '';
  return `${collectionPath(ref, namespace)}/${encodeURIComponent(name)}${sub}`;
}

/** Appends the query parameters (if any) to a path. */
export function withQuery(path: string, query: URLSearchParams): string {
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

function set(q: URLSearchParams, key: string, value: string | number | boolean | undefined): void {
  if (value === undefined || value === '') return;
  q.set(key, String(value));
}

/** Query parameters of a list (and of deletecollection). */
export function listQuery(options: ListOptions = {}): URLSearchParams {
  const q = new URLSearchParams();
  set(q, 'labelSelector', options.labelSelector);
  set(q, 'fieldSelector', options.fieldSelector);
  if (options.limit !== undefined && options.limit > 0) set(q, 'limit', Math.floor(options.limit));
  set(q, 'continue', options.continue);
  set(q, 'resourceVersion', options.resourceVersion);
  set(q, 'resourceVersionMatch', options.resourceVersionMatch);
  return q;
}

/**
 * Query parameters of a watch. `sendInitialEvents` needs `resourceVersionMatch=NotOlderThan`
 * on Kubernetes, so it is added with it.
 */
export function watchQuery(options: WatchOptions = {}): URLSearchParams {
  const q = new URLSearchParams();
  q.set('watch', 'true');
  set(q, 'labelSelector', options.labelSelector);
  set(q, 'fieldSelector', options.fieldSelector);
  set(q, 'resourceVersion', options.resourceVersion);
  if (options.allowWatchBookmarks) q.set('allowWatchBookmarks', 'true');
  if (options.timeoutSeconds !== undefined) set(q, 'timeoutSeconds', Math.max(0, Math.floor(options.timeoutSeconds)));
  if (options.sendInitialEvents !== undefined) {
    q.set('sendInitialEvents', String(options.sendInitialEvents));
    if (options.sendInitialEvents) q.set('resourceVersionMatch', 'NotOlderThan');
  }
  return q;
}

/** Query parameters of create and update. */
export function writeQuery(options: WriteOptions = {}): URLSearchParams {
  const q = new URLSearchParams();
  set(q, 'fieldManager', options.fieldManager);
  if (options.dryRun) q.set('dryRun', 'All');
  set(q, 'fieldValidation', options.fieldValidation);
  return q;
}

/** Query parameters of a patch (server-side apply adds `force`). */
export function patchQuery(options: PatchOptions = {}): URLSearchParams {
  const q = writeQuery(options);
  if (options.force !== undefined) q.set('force', String(options.force));
  return q;
}

/** A meta/v1 DeleteOptions body, as sent with DELETE. */
export interface DeleteOptionsBody {
  apiVersion: 'v1';
  kind: 'DeleteOptions';
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: ['All'];
}

/** The DeleteOptions body of a delete or deletecollection. */
export function deleteOptionsBody(options: DeleteOptions = {}): DeleteOptionsBody {
  const body: DeleteOptionsBody = { apiVersion: 'v1', kind: 'DeleteOptions' };
  if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
  if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.preconditions && (options.preconditions.uid || options.preconditions.resourceVersion)) {
    body.preconditions = { ...options.preconditions };
  }
  if (options.dryRun) body.dryRun = ['All'];
  return body;
}
