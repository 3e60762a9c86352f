/**
 * When an object in the target counts as ready (a KubernetesObject's
 * `spec.forProvider.readiness`): by its conditions, or by the value at a JSONPath. By
 * conditions (the default, type Ready): the condition decides when the object has it; an
 * object without any status (a ConfigMap) is ready once it exists, and so is an object of a
 * built-in kind — an API group without a dot: v1, apps/v1, batch/v1 … — that has no such
 * condition (a Namespace, a Deployment); a custom resource waits for its operator to write
 * the condition.
 */
import { isPlainObject, type JsonObject } from '../../machinery/object.js';
import { parseJsonPath } from './json-path.js';
import type { Readiness } from './kinds.js';

/** A ReadinessVerdict is ready, or not with what is missing (for a condition's message). */
export type ReadinessVerdict = { ready: true } | { ready: false; why: string };

function text(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** isBuiltIn tells whether an apiVersion is Kubernetes' own (core, or a group without a dot). */
function isBuiltIn(apiVersion: unknown): boolean {
  if (typeof apiVersion !== 'string') return false;
  const slash = apiVersion.indexOf('/');
  return slash < 0 || !apiVersion.slice(0, slash).includes('.');
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
  if (!isPlainObject(condition)) return isBuiltIn(live.apiVersion) ? { ready: true } : { ready: false, why: `it has no ${type} condition yet` };
  if (condition.status === 'True') return { ready: true };
  const reason = typeof condition.reason === 'string' && condition.reason ? ` (${condition.reason}` : '';
  const message = typeof condition.message === 'string' && condition.message ? `${reason ? ': ' : ' ('}${condition.message})` : reason ? ')' : '';
  return { ready: false, why: `its ${type} condition is ${text(condition.status)}${reason}${message}` };
}
