/**
 * The bootstrap RBAC policy: the ClusterRoles and bindings every Conductor server has
 * (cluster-admin, discovery and self-review for everyone authenticated, and the roles of
 * DESIGN's three parties), reconciled at every start: missing objects are created, missing
 * rules and subjects are added, and additions made by users are kept. An object annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone.
 */
import { isApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import { builtinRefs, type Client, type Logger } from '../../client/index.js';
import { RBAC_GROUP } from './rbac-index.js';
import { rbacRefs } from './rbac-informers.js';
import { rulesOf, uncoveredRules, type PolicyRule } from './rules.js';

/** The label Kubernetes puts on its bootstrap RBAC objects. */
export const BOOTSTRAP_LABEL = 'kubernetes.io/bootstrapping';
/** The annotation that stops reconciliation of a bootstrap object. */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

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

function clusterRole(name: string, rules: PolicyRule[]): KObject {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: meta(name), rules };
}

function group(name: string) {
  return { kind: 'Group', apiGroup: RBAC_GROUP, name };
}

function clusterRoleBinding(name: string, role: string, subjects: ReturnType<typeof group>[]): KObject {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: meta(name), roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role }, subjects };
}

function roleBinding(name: string, namespace: string, role: string, subjects: ReturnType<typeof group>[]): KObject {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleBinding', metadata: meta(name, namespace), roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role }, subjects };
}

/** The bootstrap policy for the given claim and concrete resources. */
export function bootstrapPolicy(kinds: PolicyResources): BootstrapPolicy {
  const readClaims = resourceRules(kinds.claimResources, READ);
  const readConcrete = resourceRules(kinds.concreteResources, READ);
  return {
    clusterRoles: [
      clusterRole('cluster-admin', [
        { apiGroups: ['*'], resources: ['*'], verbs: ALL },
        { nonResourceURLs: ['*'], verbs: ALL },
      ]),
      clusterRole('system:discovery', [
        { nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/version', '/version/', '/healthz', '/livez', '/readyz', '/openapi', '/openapi/*'], verbs: ['get'] },
      ]),
      clusterRole('system:basic-user', [
        { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
        { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
      ]),
      clusterRole('conductor:infrastructure-admin', [
        { apiGroups: [CORE], resources: ['providers'], verbs: ALL },
        { apiGroups: [CORE], resources: ['providers/status'], verbs: READ },
        ...resourceRules(kinds.concreteResources, ALL),
        { apiGroups: [CORE], resources: ['resourceclasses', 'schedulerprofiles', 'claimquotas'], verbs: READ },
        ...readClaims,
        { apiGroups: [''], resources: ['namespaces', 'events'], verbs: READ },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: READ },
      ]),
      clusterRole('conductor:provider-credentials', [
        { apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ALL },
      ]),
      clusterRole('conductor:platform-admin', [
        { apiGroups: [CORE], resources: ['resourceclasses', 'schedulerprofiles', 'claimquotas'], verbs: ALL },
        { apiGroups: [CORE], resources: ['providers'], verbs: READ },
        { apiGroups: [''], resources: ['namespaces'], verbs: ALL },
        { apiGroups: [''], resources: ['events'], verbs: READ },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: READ },
        ...readClaims,
        ...readConcrete,
      ]),
      clusterRole('conductor:app-developer', [
        ...resourceRules(kinds.claimResources, ALL),
        { apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ALL },
        { apiGroups: [''], resources: ['events'], verbs: READ },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: READ },
      ]),
      clusterRole('conductor:app-developer-classes', [
        { apiGroups: [CORE], resources: ['resourceclasses'], verbs: READ },
      ]),
    ],
    clusterRoleBindings: [
      clusterRoleBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
      clusterRoleBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
      clusterRoleBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
      clusterRoleBinding('conductor:app-developer-classes', 'conductor:app-developer-classes', [group('system:authenticated')]),
      clusterRoleBinding('conductor:infrastructure-admin', 'conductor:infrastructure-admin', [group(INFRASTRUCTURE_ADMINS_GROUP)]),
      clusterRoleBinding('conductor:platform-admin', 'conductor:platform-admin', [group(PLATFORM_ADMINS_GROUP)]),
    ],
    roleBindings: [roleBinding('conductor:provider-credentials', CREDENTIALS_NAMESPACE, 'conductor:provider-credentials', [group(INFRASTRUCTURE_ADMINS_GROUP)])],
  };
}

/**
 * Merges the wanted bootstrap object into the stored one: rules or subjects the stored
 * object lacks are appended and the label and annotation restored. Returns undefined when
 * nothing needs to change (or autoupdate is off). A binding whose roleRef differs is
 * returned as `recreate`.
 */
export function reconcileObject(stored: KObject, wanted: KObject): { update: KObject } | { recreate: KObject } | undefined {
  if (stored.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return undefined;
  const next: KObject = structuredClone(stored);
  let changed = false;
  if (wanted.kind === 'ClusterRole' || wanted.kind === 'Role') {
    const role = wanted.metadata.name ?? '';
    const storedRules = Array.isArray(stored.rules) ? (stored.rules as unknown[]) : [];
    const kept = storedRules.filter((r) => !(isPlainObject(r) && isRetiredRule(role, r as unknown as PolicyRule)));
    const have = rulesOf({ ...stored, rules: kept });
    const add = rulesOf(wanted).filter((r) => uncoveredRules(have, [r]).length > 0);
    if (add.length > 0 || kept.length !== storedRules.length) {
      next.rules = [...kept, ...add];
      changed = true;
    }
  } else {
    if (JSON.stringify(stored.roleRef) !== JSON.stringify(wanted.roleRef)) return { recreate: wanted };
    const have = Array.isArray(stored.subjects) ? stored.subjects.filter(isPlainObject) : [];
    const add = (wanted.subjects as Array<Record<string, unknown>>).filter((w) => !have.some((h) => h.kind === w.kind && h.name === w.name && (h.namespace ?? '') === (w.namespace ?? '')));
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

/** The claim and concrete resources of the installed CRDs (by their `claim` and `managed` categories). */
export async function policyResourcesFromCrds(client: Client): Promise<PolicyResources> {
  const list = await client.list(builtinRefs.customresourcedefinitions);
  const out: PolicyResources = { claimResources: [], concreteResources: [] };
  for (const crd of list.items) {
    const spec = isPlainObject(crd.spec) ? crd.spec : {};
    const names = isPlainObject(spec.names) ? spec.names : {};
    const categories = Array.isArray(names.categories) ? names.categories : [];
    if (typeof spec.group !== 'string' || typeof names.plural !== 'string') continue;
    const gr = { group: spec.group, resource: names.plural };
    if (categories.includes('claim')) out.claimResources.push(gr);
    if (categories.includes('managed')) out.concreteResources.push(gr);
  }
  return out;
}

/** Creates or updates the bootstrap policy through `client` (which must be allowed to). */
export async function reconcileBootstrapPolicy(client: Client, policy: BootstrapPolicy, log?: Logger): Promise<void> {
  const items: Array<[ref: (typeof rbacRefs)[keyof typeof rbacRefs], obj: KObject]> = [
    ...policy.clusterRoles.map((o) => [rbacRefs.ClusterRole, o] as const),
    ...policy.clusterRoleBindings.map((o) => [rbacRefs.ClusterRoleBinding, o] as const),
    ...policy.roleBindings.map((o) => [rbacRefs.RoleBinding, o] as const),
  ].map(([r, o]) => [r, o]);
  for (const [ref, wanted] of items) {
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
        // Another server (HA) reconciled it at the same time; its result is as good as ours.
        continue;
      }
      throw err;
    }
  }
}
