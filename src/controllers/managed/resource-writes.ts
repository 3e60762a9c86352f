/**
 * The writes the managed reconciler makes to a concrete resource itself: its finalizer, the
 * crash-guard annotations and its status. Finalizer, pending mark and status are
 * compare-and-swap (a 409 Conflict means the resource changed; the caller requeues); the
 * create outcome is a merge patch retried a few times, because it must land even if the
 * resource changed meanwhile.
 */
import type { Client, ResourceRef } from '../../client/types.js';
import { isConflict, isNotFound } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { deepEqual, isPlainObject } from '../../machinery/object.js';
import {
  EXTERNAL_CREATE_FAILED_ANNOTATION,
  EXTERNAL_CREATE_PENDING_ANNOTATION,
  EXTERNAL_CREATE_SUCCEEDED_ANNOTATION,
  EXTERNAL_NAME_ANNOTATION,
  MANAGED_PROTECTION_FINALIZER,
} from '../../apis/well-known.js';
import type { LastWrites } from './last-writes.js';
import type { OwnWrites } from './own-writes.js';
import { nextStatus, type StatusChange } from './status.js';

/** The finalizer that keeps a concrete resource until its external resource is gone. */
export { MANAGED_PROTECTION_FINALIZER };

/** The outcome of a create call, as recorded in the crash-guard annotations. */
export type CreateOutcome = 'Succeeded' | 'Failed';

const OUTCOME_ATTEMPTS = 4;
const OUTCOME_RETRY_MS = 100;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** ResourceWrites writes one concrete kind's resources through the Client. */
export class ResourceWrites<R extends KObject> {
  constructor(
    private readonly client: Client,
    private readonly ref: ResourceRef,
    private readonly fieldManager: string,
    private readonly now: () => Date,
    /** Where the versions this writes are noted, so their watch events start no reconcile. */
    private readonly own?: OwnWrites,
    /** Where the version of the latest write to each resource is noted, so a reconcile knows when its cache is behind it. */
    private readonly last?: LastWrites,
  ) {}

  /** update is a compare-and-swap update of the resource: what it stores is only this change to what was read. */
  private async update(mr: R): Promise<R> {
    return this.noted(await this.client.update<R>(this.ref, mr, { fieldManager: this.fieldManager }));
  }

  /**
   * noted tells OwnWrites (when `own`: the version is this change alone) and LastWrites of a
   * write the API answered, and returns it.
   */
  private noted(written: R, own = true): R {
    if (own) this.own?.record(written);
    this.last?.wrote(written);
    return written;
  }

  hasFinalizer(mr: R): boolean {
    return mr.metadata.finalizers?.includes(MANAGED_PROTECTION_FINALIZER) ?? false;
  }

  /** addFinalizer adds the managed-protection finalizer (compare-and-swap). */
  async addFinalizer(mr: R): Promise<R> {
    if (this.hasFinalizer(mr)) return mr;
    const finalizers = [...(mr.metadata.finalizers ?? []), MANAGED_PROTECTION_FINALIZER];
    return this.update({ ...mr, metadata: { ...mr.metadata, finalizers } });
  }

  /** removeFinalizer removes it (compare-and-swap); the API server then deletes a resource being deleted. */
  async removeFinalizer(mr: R): Promise<void> {
    if (!this.hasFinalizer(mr)) return;
    const finalizers = (mr.metadata.finalizers ?? []).filter((f) => f !== MANAGED_PROTECTION_FINALIZER);
    try {
      await this.client.update<R>(this.ref, { ...mr, metadata: { ...mr.metadata, finalizers } }, { fieldManager: this.fieldManager });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  /** markCreatePending persists `external-create-pending: at` (compare-and-swap) before create is called. */
  async markCreatePending(mr: R, at: string): Promise<R> {
    const annotations = { ...(mr.metadata.annotations ?? {}), [EXTERNAL_CREATE_PENDING_ANNOTATION]: at };
    return this.update({ ...mr, metadata: { ...mr.metadata, annotations } });
  }

  /**
   * recordCreateOutcome persists `external-create-succeeded` or `-failed` (and the external
   * name) with a merge patch, retrying a few times: losing it would leave the pending mark
   * without an outcome and stop the resource.
   */
  async recordCreateOutcome(mr: R, outcome: CreateOutcome, at: string, externalName?: string): Promise<R> {
    const key = outcome === 'Succeeded' ? EXTERNAL_CREATE_SUCCEEDED_ANNOTATION : EXTERNAL_CREATE_FAILED_ANNOTATION;
    const annotations: Record<string, string> = { [key]: at };
    if (externalName) annotations[EXTERNAL_NAME_ANNOTATION] = externalName;
    const patch = { metadata: { annotations } };
    for (let attempt = 1; ; attempt++) {
      try {
        const written = await this.client.patch<R>(this.ref, mr.metadata.name ?? '', 'merge', patch, {
          namespace: mr.metadata.namespace,
          fieldManager: this.fieldManager,
        });
        // Not compare-and-swap: its version is this reconciler's own only when nothing else changed since `mr`.
        return this.noted(written, onlyAnnotated(mr, written, annotations));
      } catch (err) {
        if (attempt >= OUTCOME_ATTEMPTS || isNotFound(err)) {
          throw new Error(`cannot record external create ${outcome.toLowerCase()} on the resource: ${(err as Error).message}`, { cause: err });
        }
        await sleep(OUTCOME_RETRY_MS * attempt);
      }
    }
  }

  /**
   * writeStatus applies `change` to the resource's status and writes it with updateStatus
   * when it differs; it returns the resource as stored.
   */
  async writeStatus(mr: R, change: StatusChange): Promise<R> {
    const status = nextStatus(mr.status, change, mr.metadata.generation, this.now(), exclusiveClaimOf(mr));
    if (deepEqual(status, mr.status)) return mr;
    return this.noted(await this.client.updateStatus<R>(this.ref, { ...mr, status }, { fieldManager: this.fieldManager }));
  }

  /** writeStatusQuietly is writeStatus for error paths: a failure to write is returned, not thrown. */
  async writeStatusQuietly(mr: R, change: StatusChange): Promise<unknown> {
    try {
      await this.writeStatus(mr, change);
      return undefined;
    } catch (err) {
      return isConflict(err) ? undefined : err;
    }
  }
}

/**
 * onlyAnnotated says whether `after` is `before` with `annotations` set and nothing else a
 * reconcile looks at changed (generation, deletion, labels, finalizers, other annotations).
 */
function onlyAnnotated(before: KObject, after: KObject, annotations: Record<string, string>): boolean {
  const a = before.metadata;
  const b = after.metadata;
  return (
    a.generation === b.generation &&
    a.deletionTimestamp === b.deletionTimestamp &&
    deepEqual(a.labels ?? {}, b.labels ?? {}) &&
    deepEqual(a.finalizers ?? [], b.finalizers ?? []) &&
    deepEqual({ ...(a.annotations ?? {}), ...annotations }, b.annotations ?? {})
  );
}

/** exclusiveClaimOf names the claim (`namespace/name`) an exclusive resource's spec.claimRef binds it to. */
function exclusiveClaimOf(mr: KObject): string | undefined {
  const spec = isPlainObject(mr.spec) ? mr.spec : {};
  const sharing = isPlainObject(spec['sharing']) ? spec['sharing'] : {};
  if (sharing['mode'] === 'Shared') return undefined;
  const ref = isPlainObject(spec['claimRef']) ? spec['claimRef'] : undefined;
  if (!ref || typeof ref['name'] !== 'string' || ref['name'] === '') return undefined;
  return `${typeof ref['namespace'] === 'string' ? ref['namespace'] : ''}/${ref['name']}`;
}
