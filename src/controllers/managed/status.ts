/**
 * The part of a concrete resource's status the managed reconciler owns: `atProvider`, the
 * `Ready`, `Synced` and `InUse` conditions, `observedGeneration`, and the phases Pending, Available
 * and Failed. The binder owns Bound and Released (and `bindings`, `allocatable`, `claim`),
 * so a resource in either of those phases keeps it.
 */
import type { ConcretePhase } from '../../apis/common/concrete.js';
import type { Condition, JsonObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import { readConditions, setCondition } from './conditions.js';

/** The condition types the reconciler writes. */
export const READY = 'Ready';
export const SYNCED = 'Synced';
/** Set while deletion waits for claims to release the resource (in-use protection). */
export const IN_USE = 'InUse';

/** The longest condition message the CRD schema accepts. */
const MESSAGE_LIMIT = 32768;

/** A ConditionState is a condition's status, reason and message. */
export interface ConditionState {
  status: Condition['status'];
  reason: string;
  message: string;
}

/** A StatusChange is what one reconcile learned; absent fields are left as they are. */
export interface StatusChange {
  ready?: ConditionState;
  synced?: ConditionState;
  /** The InUse condition: True while a requested deletion waits for claims to let go. */
  inUse?: ConditionState;
  atProvider?: JsonObject;
  /** The phase the reconciler wants; ignored while the binder's phase (Bound, Released) holds. */
  phase?: 'Available' | 'Failed';
}

/** The phases only the binder sets; the reconciler never overwrites them. */
const BINDER_PHASES: ReadonlySet<string> = new Set<ConcretePhase>(['Bound', 'Released']);

/**
 * nextPhase is the phase after a change: the binder's phases stay; an exclusive resource
 * whose spec.claimRef names a claim is Bound (the binder writes the claimRef, the reconciler
 * the phase that follows from it, in the status write the spec change causes anyway);
 * otherwise the wanted phase, or Pending when the resource has none yet.
 */
export function nextPhase(current: unknown, wanted: 'Available' | 'Failed' | undefined, claimed = false): ConcretePhase {
  if (typeof current === 'string' && BINDER_PHASES.has(current)) return current as ConcretePhase;
  if (claimed) return 'Bound';
  if (wanted) return wanted;
  if (current === 'Pending' || current === 'Available' || current === 'Failed') return current;
  return 'Pending';
}

function limited(message: string): string {
  return message.length <= MESSAGE_LIMIT ? message : `${message.slice(0, MESSAGE_LIMIT - 1)}…`;
}

/**
 * nextStatus returns a new status: `current` (any shape; fields the reconciler does not own
 * are kept as they are) with the change applied, `observedGeneration` set to `generation`,
 * and each condition's `observedGeneration` too.
 */
export function nextStatus(
  current: unknown,
  change: StatusChange,
  generation: number | undefined,
  now: Date,
  /** The claim an exclusive resource's spec.claimRef names (`namespace/name`), if any. */
  claimedBy?: string,
): Record<string, unknown> {
  const status: Record<string, unknown> = isPlainObject(current) ? { ...current } : {};
  let conditions = readConditions(status.conditions);
  const withGeneration = generation !== undefined ? { observedGeneration: generation } : {};
  for (const [type, state] of [
    [READY, change.ready],
    [SYNCED, change.synced],
    [IN_USE, change.inUse],
  ] as const) {
    if (!state) continue;
    conditions = setCondition(conditions, { type, status: state.status, reason: state.reason, message: limited(state.message), ...withGeneration }, now);
  }
  if (conditions.length > 0) status.conditions = conditions;
  if (change.atProvider !== undefined) status.atProvider = change.atProvider;
  const wasBound = status.phase === 'Bound';
  status.phase = nextPhase(status.phase, change.phase, claimedBy !== undefined);
  if (claimedBy !== undefined && status.phase === 'Bound' && !wasBound) status.claim = claimedBy;
  if (generation !== undefined) status.observedGeneration = generation;
  return status;
}
