/**
 * When an object in the target counts as ready (a KubernetesObject's
 * `spec.forProvider.readiness`): by its conditions (default: condition Ready is True; an
 * object without any status, such as a ConfigMap, is ready once it exists), or by the value
 * at a JSONPath.
 */
import { isPlainObject, type JsonObject } from '../../machinery/object.js';
import { parseJsonPath } from './json-path.js';
import type { Readiness } from './kinds.js';

/** A ReadinessVerdict is ready, or not with what is missing (for a condition's message). */
export type ReadinessVerdict = { ready: true } | { ready: false; why: string };

function text(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** readinessOf judges a live object by `readiness` (default: conditions, type Ready); a JSONPath that does not parse throws. */
export function readinessOf(live: JsonObject, readiness: Readiness | undefined): ReadinessVerdict {
  if (readiness?.type === 'JSONPath') {
    const path = parseJsonPath(readiness.jsonPath ?? '');
    const want = readiness.value ?? '';
    const found = path.find(live);
    if (found.some((v) => text(v) === want)) return { ready: true };
    return { ready: false, why: `${readiness.jsonPath} is ${found.length === 0 ? 'unset' : found.map(text).join(', ')}, want ${JSON.stringify(want)}` };
  }
  const type = readiness?.conditionType ?? 'Ready';
  if (live.status === undefined) return { ready: true };
  const conditions = isPlainObject(live.status) && Array.isArray(live.status.conditions) ? live.status.conditions : [];
  const condition = conditions.find((c) => isPlainObject(c) && c.type === type);
  if (!isPlainObject(condition)) return { ready: false, why: `it has no ${type} condition yet` };
  if (condition.status === 'True') return { ready: true };
  const reason = typeof condition.reason === 'string' && condition.reason ? ` (${condition.reason}` : '';
  const message = typeof condition.message === 'string' && condition.message ? `${reason ? ': ' : ' ('}${condition.message})` : reason ? ')' : '';
  return { ready: false, why: `its ${type} condition is ${text(condition.status)}${reason}${message}` };
}
