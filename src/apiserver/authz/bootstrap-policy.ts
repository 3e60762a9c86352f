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

/** The groups a policy is built for. */
export interface PolicyGroups {
  /** API groups of claim (abstract) kinds, e.g. storage.conductor.io. */
  claimGroups: string[];
  /** API groups of concrete (managed) kinds, e.g. database.local.conductor.io. */
  concreteGroups: string[];
}

/** The fixed claim groups of Conductor's API (DESIGN 3.1). */
export const DEFAULT_CLAIM_GROUPS = ['storage.conductor.io', 'cache.conductor.io', 'messaging.conductor.io', 'network.conductor.io'];

const CORE = 'core.conductor.io';
const READ = ['get', 'list', 'watch'];
const ALL = ['*'];

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

function uniqueSorted(xs: string[]): string[] {
  return [...new Set(xs)].sort();
}

/** The bootstrap policy for the given claim and concrete API groups. */
export function bootstrapPolicy(groups: PolicyGroups): BootstrapPolicy {
  const claimGroups = uniqueSorted([...DEFAULT_CLAIM_GROUPS, ...groups.claimGroups]);
  const concreteGroups = uniqueSorted(groups.concreteGroups);
  const readClaims: PolicyRule = { apiGroups: claimGroups, resources: ['*'], verbs: READ };
  const readConcrete: PolicyRule[] = concreteGroups.length ? [{ apiGroups: concreteGroups, resources: ['*'], verbs: READ }] : [];
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
        { apiGroups: [CORE], resources: ['providers', 'providers/status'], verbs: ALL },
        ...(concreteGroups.length ? [{ apiGroups: concreteGroups, resources: ['*'], verbs: ALL }] : []),
        { apiGroups: [CORE], resources: ['resourceclasses', 'schedulerprofiles', 'claimquotas'], verbs: READ },
        readClaims,
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
        readClaims,
        ...readConcrete,
      ]),
      clusterRole('conductor:app-developer', [
        { apiGroups: claimGroups, resources: ['*'], verbs: ALL },
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
    const have = rulesOf(stored);
    const add = rulesOf(wanted).filter((r) => uncoveredRules(have, [r]).length > 0);
    if (add.length > 0) {
      next.rules = [...(Array.isArray(stored.rules) ? stored.rules : []), ...add];
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

/** The claim and concrete groups of the installed CRDs (by their `claim` and `managed` categories). */
export async function policyGroupsFromCrds(client: Client): Promise<PolicyGroups> {
  const list = await client.list(builtinRefs.customresourcedefinitions);
  const out: PolicyGroups = { claimGroups: [], concreteGroups: [] };
  for (const crd of list.items) {
    const spec = isPlainObject(crd.spec) ? crd.spec : {};
    const names = isPlainObject(spec.names) ? spec.names : {};
    const categories = Array.isArray(names.categories) ? names.categories : [];
    if (typeof spec.group !== 'string') continue;
    if (categories.includes('claim')) out.claimGroups.push(spec.group);
    if (categories.includes('managed')) out.concreteGroups.push(spec.group);
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
