/**
 * What a Provider's credentials may do in the target, for its `status.atProvider`: a
 * SelfSubjectRulesReview in one namespace, summarised as the verbs allowed on each resource
 * (`configmaps`, `widgets.example.com`, `*` for every resource), at most MAX_RESOURCES of them.
 */
import { isPlainObject, type JsonObject } from '../../machinery/object.js';
import type { TargetClient } from './target-client.js';

/** The namespace whose rules the Provider's status summarises. */
export const RULES_NAMESPACE = 'default';
const MAX_RESOURCES = 50;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** summarizeRules turns a SelfSubjectRulesReview's status into `{namespace, verbs: {resource: [verbs]}, …}`. */
export function summarizeRules(namespace: string, status: unknown): JsonObject {
  const st = isPlainObject(status) ? status : {};
  const rules = Array.isArray(st.resourceRules) ? st.resourceRules.filter(isPlainObject) : [];
  const verbs = new Map<string, Set<string>>();
  for (const rule of rules) {
    const groups = strings(rule.apiGroups);
    for (const resource of strings(rule.resources)) {
      for (const group of groups.length > 0 ? groups : ['']) {
        const name = resource === '*' && group === '*' ? '*' : group === '' ? resource : `${resource}.${group}`;
        let set = verbs.get(name);
        if (!set) verbs.set(name, (set = new Set()));
        for (const v of strings(rule.verbs)) set.add(v);
      }
    }
  }
  const names = [...verbs.keys()].sort();
  const shown = names.slice(0, MAX_RESOURCES);
  return {
    namespace,
    verbs: Object.fromEntries(shown.map((n) => [n, [...verbs.get(n)!].sort()])),
    ...(names.length > shown.length ? { moreResources: names.length - shown.length } : {}),
    ...(st.incomplete === true ? { incomplete: true } : {}),
  };
}

/**
 * permissionsOf asks the target what the credentials may do in `namespace`; a target that does
 * not answer it (403, not served) gives `{namespace, unavailable: why}` — not a reason to fail.
 */
export async function permissionsOf(client: TargetClient, namespace: string, signal?: AbortSignal): Promise<JsonObject> {
  const res = await client.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } },
    signal,
  });
  if (res.status < 200 || res.status >= 300 || !isPlainObject(res.body)) {
    const message = isPlainObject(res.body) && typeof res.body.message === 'string' ? res.body.message : `HTTP ${res.status}`;
    return { namespace, unavailable: `the target answered the SelfSubjectRulesReview with ${res.status}: ${message}` };
  }
  return summarizeRules(namespace, res.body.status);
}
