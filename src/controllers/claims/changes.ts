/**
 * Which informer updates need a reconcile. A claim's own status write, or a resource's status
 * write that only restates what the claim already knows (a phase, an observedGeneration),
 * would otherwise start another full pass per claim — reads of connection Secrets included —
 * for nothing.
 */
import type { Condition, KObject } from '../../machinery/object.js';
import { deepEqual } from '../../machinery/object.js';

type Status = Record<string, unknown> & { conditions?: Condition[] };

/**
 * claimChangeMatters says whether an update of a claim needs a reconcile: not when only its
 * status changed (the controller's own write, which it has acted on already), but always on a
 * resync (the same object again), a spec or metadata change, or deletion.
 */
export function claimChangeMatters(old: KObject, o: KObject): boolean {
  if (old === o || old.metadata.resourceVersion === o.metadata.resourceVersion) return true;
  if (old.metadata.generation !== o.metadata.generation) return true;
  if (Boolean(old.metadata.deletionTimestamp) !== Boolean(o.metadata.deletionTimestamp)) return true;
  if (!deepEqual(old.metadata.finalizers ?? [], o.metadata.finalizers ?? [])) return true;
  if (!deepEqual(old.metadata.labels ?? {}, o.metadata.labels ?? {})) return true;
  return !deepEqual(old.metadata.annotations ?? {}, o.metadata.annotations ?? {});
}

/**
 * resourceChangeMatters says whether an update of a concrete resource concerns the claims
 * bound to it: its bindings, conditions, spec (capacity, claimRef), deletion or observed
 * state changed. A status write that only restates them (the reconciler's phase or
 * observedGeneration) does not wake every bound claim again.
 */
export function resourceChangeMatters(old: KObject, o: KObject): boolean {
  if (old === o || old.metadata.resourceVersion === o.metadata.resourceVersion) return true;
  if (old.metadata.generation !== o.metadata.generation && !onlyClaimRefSet(old, o)) return true;
  if (Boolean(old.metadata.deletionTimestamp) !== Boolean(o.metadata.deletionTimestamp)) return true;
  if (isReady(old) !== isReady(o)) return true;
  const before = (old.status ?? {}) as Status;
  const after = (o.status ?? {}) as Status;
  if (!deepEqual(before.bindings, after.bindings) || !deepEqual(before.allocatable, after.allocatable)) return true;
  if (!deepEqual(conditionStates(before.conditions), conditionStates(after.conditions))) return true;
  return !deepEqual(before.atProvider, after.atProvider);
}

/**
 * onlyClaimRefSet: the spec change is a claimRef put on a resource that had none — a binding.
 * The claim that bound it is reconciling already; a claim an admin pre-binds is pending, and
 * pending claims are woken by every resource change anyway.
 */
function onlyClaimRefSet(old: KObject, o: KObject): boolean {
  const before = (old.spec ?? {}) as Record<string, unknown>;
  const after = (o.spec ?? {}) as Record<string, unknown>;
  if (before.claimRef !== undefined || after.claimRef === undefined) return false;
  const { claimRef: _set, ...rest } = after;
  return deepEqual(before, rest);
}

/** What the conditions say, without their times and generations. */
function conditionStates(conds: Condition[] | undefined): string[] {
  return (conds ?? []).map((c) => `${c.type}=${c.status}/${c.reason ?? ''}/${c.message ?? ''}`);
}

/** isReady says whether a resource's Ready condition is True. */
export function isReady(resource: KObject): boolean {
  const conds = ((resource.status ?? {}) as Status).conditions ?? [];
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}
