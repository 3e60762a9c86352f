/**
 * Live lists: list a collection, then watch it from the list's resourceVersion and apply each
 * event; when the watch ends, watch again from the last version seen; when the server says
 * that version is too old (410), list again. What the page shows is always the server's state
 * as this user may see it; a 403 is kept as the list's error, not thrown. `useLive` follows
 * whole collections; `useLiveObjects` follows single objects by name (the same list and watch,
 * narrowed by the field selector `metadata.name`), as the claim page follows what serves it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import { ApiError } from '../../machinery/errors.js';
import type { Api, WatchEvent } from './api.js';

export interface LiveState {
  /** The objects, by kind, namespace and name. */
  items: KObject[];
  /** Why (a kind of) the list could not be read: `kind → error`. */
  errors: Map<string, unknown>;
  /** True until every list answered once. */
  loading: boolean;
}

const keyOf = (o: KObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

/** Keeps one collection (narrowed by `fieldSelector` when given) in `items` until `signal` aborts. */
async function follow(
  api: Api,
  ref: ResourceRef,
  namespace: string | undefined,
  signal: AbortSignal,
  onChange: (result: { items: Map<string, KObject> } | { error: unknown }) => void,
  fieldSelector?: string,
) {
  while (!signal.aborted) {
    const items = new Map<string, KObject>();
    let version: string;
    try {
      const list = await api.list(ref, namespace, signal, fieldSelector);
      for (const o of list.items)
        items.set(keyOf({ ...o, kind: ref.kind }), { ...o, kind: ref.kind, apiVersion: ref.group ? `${ref.group}/${ref.version}` : ref.version });
      version = list.metadata.resourceVersion ?? '';
      onChange({ items: new Map(items) });
    } catch (err) {
      if (signal.aborted) return;
      onChange({ error: err });
      // Forbidden or not found does not change by retrying quickly.
      await pause(err instanceof ApiError && (err.code === 403 || err.code === 404) ? 30_000 : 3_000, signal);
      continue;
    }
    let expired = false;
    while (!signal.aborted && !expired) {
      try {
        await api.watch(
          ref,
          namespace,
          version,
          (e: WatchEvent) => {
            if (e.type === 'ERROR') {
              expired = true;
              return;
            }
            const rv = e.object.metadata?.resourceVersion;
            if (rv) version = rv;
            if (e.type === 'BOOKMARK') return;
            const o = { ...e.object, kind: ref.kind };
            if (e.type === 'DELETED') items.delete(keyOf(o));
            else items.set(keyOf(o), o);
            onChange({ items: new Map(items) });
          },
          signal,
          fieldSelector,
        );
      } catch (err) {
        if (signal.aborted) return;
        expired = true;
        if (!(err instanceof ApiError && err.code === 410)) await pause(2_000, signal);
      }
    }
  }
}

/** useLive: the objects of `refs` in `namespace` (undefined: all namespaces), kept live. */
export function useLive(api: Api, refs: ResourceRef[], namespace: string | undefined): LiveState {
  const [state, setState] = useState<LiveState>({ items: [], errors: new Map(), loading: true });
  const key = refs.map((r) => `${r.group}/${r.resource}`).join(',');
  useEffect(() => {
    const abort = new AbortController();
    const byKind = new Map<string, Map<string, KObject>>();
    const errors = new Map<string, unknown>();
    const answered = new Set<string>();
    const publish = () => {
      const items = [...byKind.values()].flatMap((m) => [...m.values()]);
      items.sort(
        (a, b) => (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
      );
      setState({ items, errors: new Map(errors), loading: answered.size < refs.length });
    };
    setState({ items: [], errors: new Map(), loading: refs.length > 0 });
    for (const ref of refs) {
      void follow(api, ref, namespace, abort.signal, (result) => {
        answered.add(ref.kind);
        if ('items' in result) {
          byKind.set(ref.kind, result.items);
          errors.delete(ref.kind);
        } else {
          byKind.delete(ref.kind);
          errors.set(ref.kind, result.error);
        }
        publish();
      }).catch((err: unknown) => {
        // follow() handles its own failures; anything else is a bug shown on the page.
        errors.set(ref.kind, err);
        publish();
      });
    }
    return () => abort.abort();
  }, [api, key, namespace]); // `key` stands for `refs`, a new array on every render
  return state;
}

/** One object, by kind, namespace and name. */
export interface ObjectAddress {
  readonly ref: ResourceRef;
  readonly namespace?: string;
  readonly name: string;
}

export const addressKey = (a: ObjectAddress): string => `${a.ref.group}/${a.ref.resource}/${a.ref.namespaced ? (a.namespace ?? '') : ''}/${a.name}`;

/** What is known of a followed object: not answered yet, the object, not there, or why it cannot be read. */
export type Followed = { state: 'pending' } | { state: 'found'; object: KObject } | { state: 'absent' } | { state: 'failed'; error: unknown };

function sameFollowed(a: Followed | undefined, b: Followed): boolean {
  if (!a || a.state !== b.state) return false;
  if (a.state === 'found' && b.state === 'found') return a.object.metadata.resourceVersion === b.object.metadata.resourceVersion;
  if (a.state === 'failed' && b.state === 'failed') return a.error instanceof ApiError && b.error instanceof ApiError && a.error.code === b.error.code;
  return true;
}

/**
 * useLiveObjects: each object of `addresses`, kept live by a list and watch narrowed to its name
 * (`fieldSelector=metadata.name=…`): `addressKey → Followed`. An address added later starts its
 * own follow; one dropped is stopped; the others go on undisturbed (no list is repeated).
 */
export function useLiveObjects(api: Api, addresses: readonly ObjectAddress[]): ReadonlyMap<string, Followed> {
  const [state, setState] = useState<ReadonlyMap<string, Followed>>(new Map());
  const running = useRef(new Map<string, AbortController>());
  const key = addresses.map(addressKey).sort().join('\n');
  useEffect(() => {
    const wanted = new Map(addresses.map((a) => [addressKey(a), a]));
    for (const [k, abort] of running.current)
      if (!wanted.has(k)) {
        abort.abort();
        running.current.delete(k);
      }
    const set = (k: string, f: Followed) =>
      setState((prev) => {
        if (!running.current.has(k) || sameFollowed(prev.get(k), f)) return prev;
        return new Map(prev).set(k, f);
      });
    setState((prev) => new Map([...prev].filter(([k]) => wanted.has(k))));
    for (const [k, a] of wanted) {
      if (running.current.has(k)) continue;
      const abort = new AbortController();
      running.current.set(k, abort);
      set(k, { state: 'pending' });
      void follow(
        api,
        a.ref,
        a.namespace,
        abort.signal,
        (result) => {
          if (abort.signal.aborted) return;
          if ('error' in result) return set(k, { state: 'failed', error: result.error });
          const object = [...result.items.values()].find((o) => o.metadata.name === a.name);
          set(k, object ? { state: 'found', object } : { state: 'absent' });
        },
        `metadata.name=${a.name}`,
      ).catch((error: unknown) => set(k, { state: 'failed', error }));
    }
  }, [api, key]); // `key` stands for `addresses`
  // Every follow stops with the page, or when the session (api) changes.
  useEffect(() => {
    const all = running.current;
    return () => {
      for (const abort of all.values()) abort.abort();
      all.clear();
    };
  }, [api]);
  return state;
}

/** A condition of an object, if it has it. */
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export function conditionsOf(o: KObject): Condition[] {
  const status = isPlainObject(o.status) ? o.status : {};
  const all: unknown[] = Array.isArray(status.conditions) ? status.conditions : [];
  return all.filter((c): c is Condition => isPlainObject(c) && typeof c.type === 'string' && typeof c.status === 'string');
}

export function conditionOf(o: KObject, type: string): Condition | undefined {
  return conditionsOf(o).find((c) => c.type === type);
}

export function phaseOf(o: KObject): string {
  const status = isPlainObject(o.status) ? o.status : {};
  return typeof status.phase === 'string' ? status.phase : '';
}
