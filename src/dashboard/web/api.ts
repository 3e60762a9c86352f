/**
 * The dashboard's only way to the server: the ordinary Kubernetes API paths over fetch, with
 * the bearer token typed at login (or none: the browser's client certificate), so RBAC applies
 * exactly as it does to kubectl. Errors are ApiErrors carrying the server's Status.
 */
import type { ResourceRef } from '../../client/types.js';
import { ApiError, type StatusReason } from '../../machinery/errors.js';
import { isPlainObject, type KList, type KObject } from '../../machinery/object.js';
import type { TraceReader } from '../../trace/trace-tree.js';

/** The path of a resource collection, or of one object when `name` is given. */
export function pathOf(ref: ResourceRef, namespace?: string, name?: string): string {
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const ns = ref.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${ref.resource}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
}

/** One event of a watch stream. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KObject;
}

async function failure(res: Response, what: string): Promise<ApiError> {
  let status: unknown;
  try {
    status = await res.json();
  } catch {
    status = undefined;
  }
  const message = isPlainObject(status) && typeof status.message === 'string' ? status.message : `${what}: HTTP ${res.status}`;
  const reason = isPlainObject(status) && typeof status.reason === 'string' ? status.reason : 'Unknown';
  return new ApiError(res.status, reason as StatusReason, message);
}

export class Api implements TraceReader {
  /** @param token the bearer token; undefined: the browser's client certificate authenticates */
  constructor(readonly token: string | undefined) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Accept: 'application/json', ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}), ...extra };
  }

  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const res = await fetch(path, {
      method,
      headers: this.headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
      signal,
    });
    if (!res.ok) throw await failure(res, `${method} ${path}`);
    return (await res.json()) as T;
  }

  get<T extends KObject = KObject>(ref: ResourceRef, name: string, namespace?: string): Promise<T> {
    return this.request<T>('GET', pathOf(ref, namespace, name));
  }

  /** Lists a collection; `fieldSelector` (e.g. `metadata.name=db-1`) narrows it on the server. */
  list(ref: ResourceRef, namespace: string | undefined, signal?: AbortSignal, fieldSelector?: string): Promise<KList> {
    const query = fieldSelector ? `?${new URLSearchParams({ fieldSelector }).toString()}` : '';
    return this.request<KList>('GET', `${pathOf(ref, namespace)}${query}`, undefined, signal);
  }

  /**
   * Watches a collection (narrowed by `fieldSelector` when given) from `resourceVersion`,
   * calling `onEvent` for each event until the server ends the stream (resolves) or `signal`
   * aborts (rejects with an AbortError).
   */
  async watch(
    ref: ResourceRef,
    namespace: string | undefined,
    resourceVersion: string,
    onEvent: (e: WatchEvent) => void,
    signal: AbortSignal,
    fieldSelector?: string,
  ): Promise<void> {
    const query = new URLSearchParams({ watch: '1', resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: '600' });
    if (fieldSelector) query.set('fieldSelector', fieldSelector);
    const res = await fetch(`${pathOf(ref, namespace)}?${query.toString()}`, {
      headers: this.headers(),
      credentials: 'same-origin',
      cache: 'no-store',
      signal,
    });
    if (!res.ok || !res.body) throw await failure(res, `watch ${ref.resource}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += value;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== '') onEvent(JSON.parse(line) as WatchEvent);
      }
    }
  }

  /** Who the server takes this session for (SelfSubjectReview, as `kubectl auth whoami`). */
  async whoami(): Promise<{ username: string; groups: string[] }> {
    const review = await this.request<{ status?: { userInfo?: { username?: string; groups?: string[] } } }>(
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    );
    return { username: review.status?.userInfo?.username ?? '?', groups: review.status?.userInfo?.groups ?? [] };
  }
}

/** What a failed call means to the reader of a page. */
export function describeFailure(err: unknown, what: string): string {
  if (err instanceof ApiError) {
    if (err.code === 403) return `Not allowed: ${what}. ${err.message}`;
    if (err.code === 401) return 'Your session is no longer accepted: sign in again.';
    return `${what}: ${err.message}`;
  }
  return `${what}: ${err instanceof Error ? err.message : String(err)}`;
}
