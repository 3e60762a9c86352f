/**
 * installCrds puts Conductor's CRDs on a Kubernetes-compatible API server (ours, in-process
 * or over HTTP, or a real cluster) with server-side apply, then waits until every one is
 * Established, i.e. its kind is served.
 */
import { createHash } from 'node:crypto';
import type { KObject } from '../machinery/object.js';
import { isPlainObject } from '../machinery/object.js';
import { builtinRefs, type Client, type WatchHandle } from '../client/types.js';
import { errorMessage, silentLogger, type Logger } from '../client/logger.js';
import { CONDUCTOR_FIELD_MANAGER } from './well-known.js';

/** The finalizer that makes an API server delete a CRD's objects before the CRD. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface InstallCrdsOptions {
  /** The CRDs to install (the catalog's: src/conductor/catalog.ts). */
  crds: KObject[];
  /** How long to wait for every CRD to be Established; default 30 s. */
  timeoutMs?: number;
  fieldManager?: string;
  logger?: Logger;
}

export interface InstallCrdsResult {
  /** The CRD names, in install order. */
  names: string[];
  /** The CRDs that were written (new or changed definitions); the others were current. */
  applied: string[];
  durationMs: number;
}

/** Whether a CRD's status says it is Established. */
export function crdEstablished(crd: KObject): boolean {
  const status = crd.status;
  if (!isPlainObject(status) || !Array.isArray(status.conditions)) return false;
  return status.conditions.some((c) => isPlainObject(c) && c.type === 'Established' && c.status === 'True');
}

/**
 * Creates or updates every CRD (server-side apply, field manager `conductor`, forcing
 * ownership of the fields Conductor defines) and resolves once all are Established.
 * Rejects with the names still pending when `timeoutMs` passes, or with the first write's
 * error (which names the CRD).
 */
export async function installCrds(client: Client, opts: InstallCrdsOptions): Promise<InstallCrdsResult> {
  const started = performance.now();
  const crds = opts.crds;
  const ref = builtinRefs.customresourcedefinitions;
  const fieldManager = opts.fieldManager ?? CONDUCTOR_FIELD_MANAGER;
  const log = opts.logger ?? silentLogger;
  const names = crds.map((c) => c.metadata.name!);

  // CRDs this definition was already applied as (same hash) and that are served are left as
  // they are: a restart of the same version writes nothing.
  const current = new Map((await client.list(ref)).items.map((c) => [c.metadata.name!, c]));
  const stamped = crds.map(withDefinitionHash);
  const changed = stamped.filter((crd) => {
    const have = current.get(crd.metadata.name!);
    return (
      !have ||
      !crdEstablished(have) ||
      have.metadata.annotations?.[DEFINITION_HASH_ANNOTATION] !== crd.metadata.annotations?.[DEFINITION_HASH_ANNOTATION] ||
      specChangedByOthers(have, fieldManager)
    );
  });
  const applied = await Promise.all(
    changed.map(async (crd) => {
      try {
        return await client.patch(ref, crd.metadata.name!, 'apply', withCleanupFinalizer(crd), { fieldManager, force: true });
      } catch (err) {
        throw new Error(`cannot install CRD ${crd.metadata.name}: ${errorMessage(err)}`, { cause: err });
      }
    }),
  );
  const pending = new Set(applied.filter((c) => !crdEstablished(c)).map((c) => c.metadata.name!));
  if (pending.size > 0) await waitEstablished(client, pending, opts.timeoutMs ?? 30_000);

  const durationMs = performance.now() - started;
  log.info({ crds: names.length, applied: changed.length, durationMs: Math.round(durationMs) }, 'installed CRDs');
  return { names, applied: changed.map((c) => c.metadata.name!), durationMs };
}

/**
 * The annotation holding a hash of the definition a CRD was last applied from, so an
 * unchanged definition is not applied again (unless someone else changed its spec).
 */
export const DEFINITION_HASH_ANNOTATION = 'conductor.io/definition-hash';

/** Whether a manager other than ours owns part of the CRD's spec: someone changed it by hand, so apply again. */
function specChangedByOthers(crd: KObject, ours: string): boolean {
  return (crd.metadata.managedFields ?? []).some((m) => m.manager !== ours && !m.subresource && isPlainObject(m.fieldsV1) && 'f:spec' in m.fieldsV1);
}

function withDefinitionHash(crd: KObject): KObject {
  const hash = createHash('sha256').update(JSON.stringify(crd)).digest('hex').slice(0, 16);
  return { ...crd, metadata: { ...crd.metadata, annotations: { ...(crd.metadata.annotations ?? {}), [DEFINITION_HASH_ANNOTATION]: hash } } };
}

/**
 * The CRD with the finalizer API servers put on CRDs so their objects are deleted before
 * the definition goes (Conductor's server adds it right after creation, Kubernetes when
 * deletion starts). Sending it with the CRD saves our server a write per CRD before it
 * can mark the CRD Established, which keeps start-up fast; on Kubernetes it changes
 * nothing.
 */
function withCleanupFinalizer(crd: KObject): KObject {
  const finalizers = crd.metadata.finalizers ?? [];
  if (finalizers.includes(CRD_CLEANUP_FINALIZER)) return crd;
  return { ...crd, metadata: { ...crd.metadata, finalizers: [...finalizers, CRD_CLEANUP_FINALIZER] } };
}

/** Resolves when every CRD named in `pending` is Established (the set is emptied as they become so). */
async function waitEstablished(client: Client, pending: Set<string>, timeoutMs: number): Promise<void> {
  const ref = builtinRefs.customresourcedefinitions;
  const list = await client.list(ref);
  for (const crd of list.items) if (crdEstablished(crd)) pending.delete(crd.metadata.name!);
  if (pending.size === 0) return;

  await new Promise<void>((resolve, reject) => {
    let handle: WatchHandle | undefined;
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      handle?.stop();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`CRDs not Established after ${timeoutMs} ms: ${[...pending].sort().join(', ')}`)), timeoutMs);
    const watchFrom = (resourceVersion: string) => {
      handle = client.watch(
        ref,
        { resourceVersion },
        {
          onEvent(ev) {
            if (ev.type === 'ERROR') {
              // Our revision was compacted away: start over from a fresh list.
              handle?.stop();
              relist();
              return;
            }
            if ((ev.type === 'ADDED' || ev.type === 'MODIFIED') && crdEstablished(ev.object)) {
              pending.delete(ev.object.metadata.name!);
              if (pending.size === 0) finish();
            }
          },
          onClose(err) {
            if (!done) relist(err);
          },
        },
      );
    };
    const relist = (cause?: Error) => {
      if (done) return;
      client.list(ref).then(
        (again) => {
          for (const crd of again.items) if (crdEstablished(crd)) pending.delete(crd.metadata.name!);
          if (pending.size === 0) finish();
          else watchFrom(again.metadata.resourceVersion ?? '');
        },
        (err: unknown) => finish(new Error(`cannot watch CRDs becoming Established: ${errorMessage(cause ?? err)}`)),
      );
    };
    watchFrom(list.metadata.resourceVersion ?? '');
  });
}
