/**
 * The bootstrap RBAC policy: the ClusterRoles and bindings every Conductor server has
 * (cluster-admin, discovery and self-review for everyone authenticated, and the roles of
 * the three parties), reconciled at every start: missing objects are created, missing
 * rules and subjects are added, and additions made by users are kept. An object annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone.
 */
import { isApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import { builtinRefs, type Client, type Logger } from '../../client/index.js';
import { isProtectedGroup } from '../builtins/crd-validation.js';
import { RBAC_GROUP } from './rbac-index.js';
import { rbacRefs } from './rbac-informers.js';
import { rulesOf, uncoveredRules, type PolicyRule } from './rules.js';

/** The label Kubernetes puts on its bootstrap RBAC objects. */
export const BOOTSTRAP_LABEL = 'kubernetes.io/bootstrapping';
/** The annotation that stops reconciliation of a bootstrap object. */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

/**
 * The annotation on the roles whose rules name claim and concrete kinds: the kinds their
 * rules were last built for (JSON `{"claims":[...],"concrete":[...]}`, `<plural>.<group>`), so
 * reconciling can tell the rules it generated for a kind that is gone from rules users added.
 */
export const POLICY_KINDS_ANNOTATION = 'conductor.io/rbac-kinds';

/** The groups `conductor user add --group` should use for the two admin parties. */
export const INFRASTRUCTURE_ADMINS_GROUP = 'conductor:infrastructure-admins';
export const PLATFORM_ADMINS_GROUP = 'conductor:platform-admins';

/** The namespace provider credentials live in. */
export const CREDENTIALS_NAMESPACE = 'conductor-system';

/** A GroupResource is one resource (plural) of one API group. */
export interface GroupResource {
  group: string;
  resource: string;
}

/**
 * The resources a policy is built for. Roles name them one by one, never with `*`: a `*`
 * would also grant every subresource (`status` above all), and only controllers write a
 * claim's or a concrete resource's status.
 */
export interface PolicyResources {
  /** The claim (abstract) kinds, e.g. postgresqlinstances in storage.conductor.io. */
  claimResources: GroupResource[];
  /** The concrete (managed) kinds, e.g. postgresqlservers in database.local.conductor.io. */
  concreteResources: GroupResource[];
}

const CORE = 'core.conductor.io';
const READ = ['get', 'list', 'watch'];
const ALL = ['*'];

/**
 * The rules for `resources`, one pair per API group: `verbs` on exactly the listed resources
 * (main resources only), and reading their `status` subresource — the same information the
 * main resource shows (kubectl reads it before it patches it), never writing it.
 */
function resourceRules(resources: GroupResource[], verbs: string[]): PolicyRule[] {
  const byGroup = new Map<string, Set<string>>();
  for (const r of resources) {
    const set = byGroup.get(r.group) ?? new Set<string>();
    set.add(r.resource);
    byGroup.set(r.group, set);
  }
  return [...byGroup.keys()].sort().flatMap((g) => {
    const plurals = [...byGroup.get(g)!].sort();
    return [
      { apiGroups: [g], resources: plurals, verbs },
      { apiGroups: [g], resources: plurals.map((p) => `${p}/status`), verbs: READ },
    ];
  });
}

/** `get` on `<plural>/log` of each resource (a concrete resource's server log, as `pods/log`). */
function logRules(resources: GroupResource[]): PolicyRule[] {
  const byGroup = new Map<string, string[]>();
  for (const r of resources) byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), `${r.resource}/log`]);
  return [...byGroup.keys()].sort().map((g) => ({ apiGroups: [g], resources: byGroup.get(g)!.sort(), verbs: ['get'] }));
}

/**
 * Rules earlier versions of the bootstrap policy granted and that were too wide; reconciling
 * removes them from the bootstrap roles (a user who wants them back sets autoupdate "false"):
 * `resources: ['*']` on Conductor's groups (it included `*\/status`, so a developer could
 * write their claim's status and an infrastructure admin a concrete resource's), and
 * writing `providers/status` for infrastructure admins (a Provider's Ready is the controller's word).
 */
export function isRetiredRule(role: string, rule: PolicyRule): boolean {
  if (!role.startsWith('conductor:') || rule.nonResourceURLs?.length || rule.resourceNames?.length) return false;
  const groups = rule.apiGroups ?? [];
  const resources = rule.resources ?? [];
  const conductorGroups = groups.length > 0 && groups.every((g) => g === CORE || g.endsWith('.conductor.io'));
  if (conductorGroups && resources.includes('*')) return true;
  const writes = rule.verbs.some((v) => !READ.includes(v));
  return role === 'conductor:infrastructure-admin' && writes && groups.length === 1 && groups[0] === CORE && resources.includes('providers/status');
}

/** The bootstrap objects, in the order they are reconciled. */
export interface BootstrapPolicy {
  clusterRoles: KObject[];
  clusterRoleBindings: KObject[];
  roleBindings: KObject[];
}

function meta(name: string, namespace?: string): KObject['metadata'] {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { [BOOTSTRAP_LABEL]: 'rbac-defaults' },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

function clusterRole(name: string, rules: PolicyRule[], kinds?: string): KObject {
  const metadata = meta(name);
  if (kinds !== undefined) metadata.annotations = { ...metadata.annotations, [POLICY_KINDS_ANNOTATION]: kinds };
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata, rules };
}

function uniqueSorted(xs: GroupResource[]): GroupResource[] {
  const byKey = new Map(xs.map((x) => [`${x.resource}.${x.group}`, x] as const));
  return [...byKey.keys()].sort().map((k) => byKey.get(k)!);
}

/** The value of POLICY_KINDS_ANNOTATION for `kinds`. */
export function kindsAnnotation(kinds: PolicyResources): string {
  const names = (xs: GroupResource[]) => uniqueSorted(xs).map((x) => `${x.resource}.${x.group}`);
  return JSON.stringify({ claims: names(kinds.claimResources), concrete: names(kinds.concreteResources) });
}

/** Reads POLICY_KINDS_ANNOTATION; undefined when absent or not understood (then no rule is taken for generated). */
export function parseKindsAnnotation(value: string | undefined): PolicyResources | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed)) return undefined;
  const list = (v: unknown): GroupResource[] | undefined => {
    if (!Array.isArray(v)) return undefined;
    const out: GroupResource[] = [];
    for (const x of v) {
      const dot = typeof x === 'string' ? x.indexOf('.') : -1;
      if (dot <= 0 || dot === (x as string).length - 1) return undefined;
      const gr = { resource: (x as string).slice(0, dot), group: (x as string).slice(dot + 1) };
      if (!isKindResource(gr)) return undefined;
      out.push(gr);
    }
    return out;
  };
  const claimResources = list(parsed.claims);
  const concreteResources = list(parsed.concrete);
  return claimResources && concreteResources ? { claimResources, concreteResources } : undefined;
}

/**
 * Whether `gr` can be named in a rule as a kind: a plural that is a DNS label (no `*`, no
 * `/`, so never a subresource such as `status`) in a non-empty group that is not one of
 * Kubernetes' own (`*.k8s.io`, `*.kubernetes.io`: a CRD there, labelled abstract, must not
 * hand developers `roles.rbac.authorization.k8s.io` or the like).
 */
export function isKindResource(gr: GroupResource): boolean {
  if (isProtectedGroup(gr.group)) return false;
  return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(gr.resource) && gr.resource.length <= 63 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(gr.group);
}

function group(name: string) {
  return { kind: 'Group', apiGroup: RBAC_GROUP, name };
}

function clusterRoleBinding(name: string, role: string, subjects: ReturnType<typeof group>[]): KObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects,
  };
}

function roleBinding(name: string, namespace: string, role: string, subjects: ReturnType<typeof group>[]): KObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata: meta(name, namespace),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects,
  };
}

/** The bootstrap policy for the given claim and concrete resources. */
export function bootstrapPolicy(given: PolicyResources): BootstrapPolicy {
  const kinds: PolicyResources = {
    claimResources: uniqueSorted(given.claimResources.filter(isKindResource)),
    concreteResources: uniqueSorted(given.concreteResources.filter(isKindResource)),
  };
  const annotation = kindsAnnotation(kinds);
  const readClaims = resourceRules(kinds.claimResources, READ);
  const readConcrete = resourceRules(kinds.concreteResources, READ);
  return {
    clusterRoles: [
      clusterRole('cluster-admin', [
        { apiGroups: ['*'], resources: ['*'], verbs: ALL },
        { nonResourceURLs: ['*'], verbs: ALL },
      ]),
      clusterRole('system:discovery', [
        {
          nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/version', '/version/', '/healthz', '/livez', '/readyz', '/openapi', '/openapi/*'],
          verbs: ['get'],
        },
      ]),
      clusterRole('system:basic-user', [
        { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
        { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
      ]),
      clusterRole(
        'conductor:infrastructure-admin',
        [
          { apiGroups: [CORE], resources: ['providers'], verbs: ALL },
          { apiGroups: [CORE], resources: ['providers/status'], verbs: READ },
          ...resourceRules(kinds.concreteResources, ALL),
          ...logRules(kinds.concreteResources),
          { apiGroups: [CORE], resources: ['resourceclasses', 'schedulerprofiles', 'claimquotas'], verbs: READ },
          ...readClaims,
          { apiGroups: [''], resources: ['namespaces', 'events'], verbs: READ },
          { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: READ },
        ],
        annotation,
      ),
      // Prometheus' scrape of /metrics (bind it to the scraper's user or ServiceAccount).
      clusterRole('conductor:metrics-reader', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]),
      clusterRole('conductor:provider-credentials', [{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ALL }]),
      clusterRole(
        'conductor:platform-admin',
        [
          { apiGroups: [CORE], resources: ['resourceclasses', 'schedulerprofiles', 'claimquotas'], verbs: ALL },
          { apiGroups: [CORE], resources: ['providers'], verbs: READ },
          { apiGroups: [''], resources: ['namespaces'], verbs: ALL },
          { apiGroups: [''], resources: ['events'], verbs: READ },
          { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: READ },
          ...readClaims,
          ...readConcrete,
          ...logRules(kinds.concreteResources),
        ],
        annotation,
      ),
      clusterRole(
        'conductor:app-developer',
        [
          ...resourceRules(kinds.claimResources, ALL),
          { apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ALL },
          { apiGroups: [''], resources: ['events'], verbs: READ },
          { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: READ },
        ],
        annotation,
      ),
      clusterRole('conductor:app-developer-classes', [{ apiGroups: [CORE], resources: ['resourceclasses'], verbs: READ }]),
    ],
    clusterRoleBindings: [
      clusterRoleBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
      clusterRoleBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
      clusterRoleBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
      clusterRoleBinding('conductor:app-developer-classes', 'conductor:app-developer-classes', [group('system:authenticated')]),
      clusterRoleBinding('conductor:infrastructure-admin', 'conductor:infrastructure-admin', [group(INFRASTRUCTURE_ADMINS_GROUP)]),
      clusterRoleBinding('conductor:platform-admin', 'conductor:platform-admin', [group(PLATFORM_ADMINS_GROUP)]),
    ],
    roleBindings: [
      roleBinding('conductor:provider-credentials', CREDENTIALS_NAMESPACE, 'conductor:provider-credentials', [group(INFRASTRUCTURE_ADMINS_GROUP)]),
    ],
  };
}

/**
 * Merges the wanted bootstrap object into the stored one: rules or subjects the stored
 * object lacks are appended and the label and annotations restored. A role's rules that
 * the policy generated for kinds it no longer names (the stored POLICY_KINDS_ANNOTATION says
 * which kinds they were built for) are removed, and so are retired rules (isRetiredRule);
 * every other rule, users' additions included, is kept. Returns undefined when nothing needs
 * to change (or autoupdate is off). A binding whose roleRef differs is returned as `recreate`.
 */
export function reconcileObject(stored: KObject, wanted: KObject): { update: KObject } | { recreate: KObject } | undefined {
  if (stored.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return undefined;
  const next: KObject = structuredClone(stored);
  let changed = false;
  if (wanted.kind === 'ClusterRole' || wanted.kind === 'Role') {
    const role = wanted.metadata.name ?? '';
    const wantedRules = rulesOf(wanted);
    const stale = generatedBefore(stored, wanted).filter((p) => !wantedRules.some((w) => sameRule(p, w)));
    const storedRules = Array.isArray(stored.rules) ? (stored.rules as unknown[]) : [];
    const kept = storedRules.filter(
      (r) => !(isPlainObject(r) && (isRetiredRule(role, r as unknown as PolicyRule) || stale.some((s) => sameRule(s, r as unknown as PolicyRule)))),
    );
    const have = rulesOf({ ...stored, rules: kept });
    const add = wantedRules.filter((r) => uncoveredRules(have, [r]).length > 0);
    if (add.length > 0 || kept.length !== storedRules.length) {
      next.rules = [...kept, ...add];
      changed = true;
    }
    const kinds = wanted.metadata.annotations?.[POLICY_KINDS_ANNOTATION];
    if (kinds !== undefined && stored.metadata.annotations?.[POLICY_KINDS_ANNOTATION] !== kinds) {
      next.metadata.annotations = { ...next.metadata.annotations, [POLICY_KINDS_ANNOTATION]: kinds };
      changed = true;
    }
  } else {
    if (JSON.stringify(stored.roleRef) !== JSON.stringify(wanted.roleRef)) return { recreate: wanted };
    const have = Array.isArray(stored.subjects) ? stored.subjects.filter(isPlainObject) : [];
    const add = (wanted.subjects as Array<Record<string, unknown>>).filter(
      (w) => !have.some((h) => h.kind === w.kind && h.name === w.name && (h.namespace ?? '') === (w.namespace ?? '')),
    );
    if (add.length > 0) {
      next.subjects = [...have, ...add];
      changed = true;
    }
  }
  const labels = next.metadata.labels ?? {};
  if (labels[BOOTSTRAP_LABEL] !== 'rbac-defaults') {
    next.metadata.labels = { ...labels, [BOOTSTRAP_LABEL]: 'rbac-defaults' };
    changed = true;
  }
  return changed ? { update: next } : undefined;
}

/** The rules the policy gave the role `wanted` names for the kinds the stored role was last built for. */
function generatedBefore(stored: KObject, wanted: KObject): PolicyRule[] {
  if (wanted.metadata.annotations?.[POLICY_KINDS_ANNOTATION] === undefined) return [];
  const before = parseKindsAnnotation(stored.metadata.annotations?.[POLICY_KINDS_ANNOTATION]);
  if (!before) return [];
  const role = bootstrapPolicy(before).clusterRoles.find((r) => r.metadata.name === wanted.metadata.name);
  return role ? rulesOf(role) : [];
}

function sameList(a: string[] | undefined, b: string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Whether two rules are the same (lists compared in order, as the policy generates them sorted). */
function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  return (
    sameList(a.verbs, b.verbs) &&
    sameList(a.apiGroups, b.apiGroups) &&
    sameList(a.resources, b.resources) &&
    sameList(a.resourceNames, b.resourceNames) &&
    sameList(a.nonResourceURLs, b.nonResourceURLs)
  );
}

/**
 * Which CRDs define claim kinds and which concrete kinds. RBAC knows nothing of claims: the
 * rule comes from whoever assembles the server (Conductor's composition root, `src/conductor`).
 */
export interface CrdKinds {
  /** Whether the CRD defines a claim (abstract) kind; only namespaced ones are taken. */
  isClaim(crd: KObject): boolean;
  /** Whether the CRD defines a concrete (managed) kind. */
  isConcrete(crd: KObject): boolean;
}

/** No CRD defines a claim or concrete kind (a server assembled without Conductor's kinds). */
export const NO_CRD_KINDS: CrdKinds = { isClaim: () => false, isConcrete: () => false };

/**
 * The claim and concrete kinds among `crds`, as `kinds` tells them; a claim kind must also be
 * namespaced. CRDs whose names cannot be read, or cannot be named in a rule, are skipped.
 */
export function policyResourcesOf(crds: Iterable<KObject>, kinds: CrdKinds): PolicyResources {
  const out: PolicyResources = { claimResources: [], concreteResources: [] };
  for (const crd of crds) {
    const spec = isPlainObject(crd.spec) ? crd.spec : {};
    const names = isPlainObject(spec.names) ? spec.names : {};
    if (typeof spec.group !== 'string' || typeof names.plural !== 'string') continue;
    const gr = { group: spec.group, resource: names.plural };
    if (!isKindResource(gr)) continue;
    if (spec.scope === 'Namespaced' && kinds.isClaim(crd)) out.claimResources.push(gr);
    if (kinds.isConcrete(crd)) out.concreteResources.push(gr);
  }
  return out;
}

/** The claim and concrete resources of the installed CRDs (see policyResourcesOf). */
export async function policyResourcesFromCrds(client: Client, kinds: CrdKinds): Promise<PolicyResources> {
  return policyResourcesOf((await client.list(builtinRefs.customresourcedefinitions)).items, kinds);
}

/** What reconcileBootstrapPolicy reconciles and how. */
export interface ReconcileOptions {
  logger?: Logger;
  /** Only the objects this accepts; default all. */
  only?: (wanted: KObject) => boolean;
  /** Create objects that do not exist; default true. */
  createMissing?: boolean;
}

/**
 * Creates or updates the bootstrap policy through `client` (which must be allowed to).
 * Returns how many objects another writer changed at the same time (409 Conflict); they are
 * skipped, so a caller that must see its result stored runs it again.
 */
export async function reconcileBootstrapPolicy(client: Client, policy: BootstrapPolicy, opts: ReconcileOptions = {}): Promise<number> {
  const log = opts.logger;
  const items: Array<[ref: (typeof rbacRefs)[keyof typeof rbacRefs], obj: KObject]> = [
    ...policy.clusterRoles.map((o) => [rbacRefs.ClusterRole, o] as const),
    ...policy.clusterRoleBindings.map((o) => [rbacRefs.ClusterRoleBinding, o] as const),
    ...policy.roleBindings.map((o) => [rbacRefs.RoleBinding, o] as const),
  ].map(([r, o]) => [r, o]);
  let conflicts = 0;
  for (const [ref, wanted] of items) {
    if (opts.only && !opts.only(wanted)) continue;
    const name = wanted.metadata.name!;
    const ns = wanted.metadata.namespace;
    let stored: KObject | undefined;
    try {
      stored = await client.get(ref, name, ns);
    } catch (err) {
      if (!(isApiError(err) && err.code === 404)) throw err;
    }
    try {
      if (!stored) {
        if (opts.createMissing === false) continue;
        await client.create(ref, structuredClone(wanted), { fieldManager: 'conductor-bootstrap' });
        continue;
      }
      const r = reconcileObject(stored, wanted);
      if (!r) continue;
      if ('update' in r) {
        await client.update(ref, r.update, { fieldManager: 'conductor-bootstrap' });
      } else {
        await client.delete(ref, name, { namespace: ns });
        await client.create(ref, structuredClone(r.recreate), { fieldManager: 'conductor-bootstrap' });
      }
      log?.info({ kind: wanted.kind, name }, 'reconciled bootstrap RBAC object');
    } catch (err) {
      if (isApiError(err) && (err.code === 409 || err.reason === 'AlreadyExists')) {
        // Another writer (a second server in HA) changed it at the same time.
        conflicts++;
        continue;
      }
      throw err;
    }
  }
  return conflicts;
}
