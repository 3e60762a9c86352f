/**
 * Conditions in the metav1.Condition shape: one entry per type; `lastTransitionTime` moves
 * only when the status of a condition changes, so it says since when the condition holds.
 */
import type { Condition } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';

/** A ConditionUpdate is a condition without its transition time, which setCondition decides. */
export type ConditionUpdate = Omit<Condition, 'lastTransitionTime'>;

/** conditionTime formats a metav1.Time: RFC 3339 in whole seconds. */
export function conditionTime(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** readConditions returns the well-formed conditions of a status's `conditions` field. */
export function readConditions(value: unknown): Condition[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (c): c is Condition => isPlainObject(c) && typeof c.type === 'string' && (c.status === 'True' || c.status === 'False' || c.status === 'Unknown'),
  );
}

/** findCondition returns the condition of `type`, if present. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * setCondition returns `conditions` with `update` in place of the condition of its type
 * (appended when absent). The transition time is kept when the status is unchanged and set
 * to `now` when it changes; the input is not modified.
 */
export function setCondition(conditions: readonly Condition[] | undefined, update: ConditionUpdate, now: Date): Condition[] {
  const list = conditions ? [...conditions] : [];
  const i = list.findIndex((c) => c.type === update.type);
  const old = i >= 0 ? list[i] : undefined;
  const lastTransitionTime = old && old.status === update.status && old.lastTransitionTime ? old.lastTransitionTime : conditionTime(now);
  const next: Condition = {
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: update.message,
    lastTransitionTime,
    ...(update.observedGeneration !== undefined ? { observedGeneration: update.observedGeneration } : {}),
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}
