/**
 * RBAC policy rules and how they match a request: verbs, API groups, resources (with
 * `resource/subresource` and `*\/subresource`), resource names and non-resource URLs (with a
 * trailing `*`). Also "covers": whether a set of rules grants everything another rule
 * grants, which escalation prevention needs.
 */
import { isPlainObject } from '../../machinery/object.js';

/** A PolicyRule grants verbs on resources (or on non-resource URLs), as rbac/v1 stores it. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** The wildcard of every rule field. */
export const ALL = '*';

/** A RuleRequest is what one rule is asked about: the request attributes that matter to RBAC. */
export interface RuleRequest {
  verb: string;
  resourceRequest: boolean;
  group: string;
  resource: string;
  subresource: string;
  name: string;
  path: string;
}

/** Whether `rule` grants `verb`. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.includes(ALL) || rule.verbs.includes(verb);
}

/** Whether `rule` covers the API group (`""` is the core group). */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  const groups = rule.apiGroups ?? [];
  return groups.includes(ALL) || groups.includes(group);
}

/** Whether `rule` covers the resource and subresource: `*`, `res`, `res/sub` or `*\/sub`. */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

/** Whether `rule` covers the object name; rules without resourceNames cover every name. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  return name !== '' && names.includes(name);
}

/** Whether `rule` covers a non-resource path: `*`, the exact path, or a prefix ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether one rule allows the request. */
export function ruleAllows(rule: PolicyRule, req: RuleRequest): boolean {
  if (!verbMatches(rule, req.verb)) return false;
  if (!req.resourceRequest) return nonResourceURLMatches(rule, req.path);
  return apiGroupMatches(rule, req.group) && resourceMatches(rule, req.resource, req.subresource) && resourceNameMatches(rule, req.name);
}

/**
 * Splits a rule into rules of one verb, one group, one resource and at most one name each
 * (or one verb and one URL for non-resource rules), the units escalation checks compare.
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        else for (const n of names) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [n] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return out;
}

function coversAll(owner: string[] | undefined, wanted: string[] | undefined): boolean {
  const o = owner ?? [];
  if (o.includes(ALL)) return true;
  return (wanted ?? []).every((w) => o.includes(w));
}

function resourcesCover(owner: string[] | undefined, wanted: string[] | undefined): boolean {
  const o = owner ?? [];
  if (o.includes(ALL)) return true;
  return (wanted ?? []).every((w) => {
    if (o.includes(w)) return true;
    const slash = w.indexOf('/');
    return slash > 0 && o.includes(`*${w.slice(slash)}`);
  });
}

function urlsCover(owner: string[] | undefined, wanted: string[] | undefined): boolean {
  const o = owner ?? [];
  return (wanted ?? []).every((w) => o.some((u) => u === ALL || u === w || (u.endsWith('*') && w.startsWith(u.slice(0, -1)))));
}

function namesCover(owner: string[] | undefined, wanted: string[] | undefined): boolean {
  const o = owner ?? [];
  if (o.length === 0) return true;
  const w = wanted ?? [];
  if (w.length === 0) return false;
  return w.every((n) => o.includes(n));
}

/** Whether the owner rule grants everything `wanted` grants. */
export function ruleCovers(owner: PolicyRule, wanted: PolicyRule): boolean {
  if (!coversAll(owner.verbs, wanted.verbs)) return false;
  const wantsUrls = (wanted.nonResourceURLs ?? []).length > 0;
  const wantsResources = (wanted.resources ?? []).length > 0 || (wanted.apiGroups ?? []).length > 0;
  if (wantsUrls && !urlsCover(owner.nonResourceURLs, wanted.nonResourceURLs)) return false;
  if (wantsResources) {
    if (!coversAll(owner.apiGroups, wanted.apiGroups)) return false;
    if (!resourcesCover(owner.resources, wanted.resources)) return false;
    if (!namesCover(owner.resourceNames, wanted.resourceNames)) return false;
  }
  return true;
}

/** The parts of `wanted` (broken down) that no rule of `owner` covers; empty when covered. */
export function uncoveredRules(owner: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of wanted) {
    for (const unit of breakdownRule(rule)) {
      if (!owner.some((o) => ruleCovers(o, unit))) missing.push(unit);
    }
  }
  return missing;
}

/**
 * Merges rules that differ only in their verbs (as `uncoveredRules` produces them) into one
 * rule each, keeping first-seen order, so messages list `get list watch` once.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out = new Map<string, PolicyRule>();
  for (const r of rules) {
    const key = JSON.stringify([r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
    const have = out.get(key);
    if (have) {
      for (const v of r.verbs) if (!have.verbs.includes(v)) have.verbs.push(v);
    } else {
      out.set(key, { ...r, verbs: [...r.verbs] });
    }
  }
  return [...out.values()];
}

/** A short human form of a rule, as 403 messages name missing permissions. */
export function describeRule(rule: PolicyRule): string {
  const parts: string[] = [];
  const list = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
  if (rule.apiGroups?.length) parts.push(`APIGroups:${list(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${list(rule.resources)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${list(rule.resourceNames)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${list(rule.nonResourceURLs)}`);
  parts.push(`Verbs:${list(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

function stringList(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter((x): x is string => typeof x === 'string');
}

/** Reads the rules of a stored Role or ClusterRole, skipping malformed entries. */
export function rulesOf(obj: { rules?: unknown } | Record<string, unknown>): PolicyRule[] {
  if (!Array.isArray(obj.rules)) return [];
  const out: PolicyRule[] = [];
  for (const r of obj.rules) {
    if (!isPlainObject(r)) continue;
    const rule: PolicyRule = { verbs: stringList(r.verbs) ?? [] };
    const apiGroups = stringList(r.apiGroups);
    const resources = stringList(r.resources);
    const resourceNames = stringList(r.resourceNames);
    const nonResourceURLs = stringList(r.nonResourceURLs);
    if (apiGroups) rule.apiGroups = apiGroups;
    if (resources) rule.resources = resources;
    if (resourceNames) rule.resourceNames = resourceNames;
    if (nonResourceURLs) rule.nonResourceURLs = nonResourceURLs;
    out.push(rule);
  }
  return out;
}
