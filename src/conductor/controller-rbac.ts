/**
 * What `conductor controllers` may do on a cluster, as RBAC rules: exactly the requests its
 * controllers make (derived from the catalog, so a new kind is covered when it is added), and
 * nothing an administrator's role has — no wildcard, no RBAC objects, no pods, nodes or
 * impersonation. The Helm chart (deploy/helm/conductor) ships these rules as generated files
 * (`npm run gen:crds` writes them; a test checks they are current).
 *
 * - Conductor's kinds: every kind is read (the controllers list and watch all of them); claims
 *   are patched (finalizers, resize) and their status written; concrete resources are created,
 *   updated and deleted (provisioning, release) with their status; Providers' and ClaimQuotas'
 *   status is written; the default SchedulerProfile is created when missing.
 * - Secrets and ConfigMaps anywhere: connection details are written into the claim's
 *   namespace, credentials and operator bundles read from the Provider's.
 * - Events: recorded for claims and resources (created, or updated to count a repeat).
 * - Namespaces: `conductor-system` is created when missing; namespaces are listed.
 * - CustomResourceDefinitions: listed and watched (to wait until Established) and applied —
 *   creation cannot be limited by name in RBAC, changing them is limited to Conductor's own.
 * - Leases, in `conductor-system` only (a Role, not a ClusterRole): leader election.
 */
import { SYSTEM_NAMESPACE } from '../apis/index.js';
import type { Catalog, CatalogKind } from './catalog.js';
import type { KindDefinition } from '../apis/index.js';

/** A rule of a Role or ClusterRole (rbac.authorization.k8s.io/v1). */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

const READ = ['get', 'list', 'watch'];
const STATUS_WRITE = ['get', 'update', 'patch'];

type AnyKind = KindDefinition | CatalogKind;

/** One rule per API group for the given kinds (resources sorted), in group order. */
function perGroup(kinds: readonly AnyKind[], resource: (k: AnyKind) => string, verbs: string[]): PolicyRule[] {
  const groups = new Map<string, Set<string>>();
  for (const k of kinds) {
    const set = groups.get(k.group) ?? new Set<string>();
    set.add(resource(k));
    groups.set(k.group, set);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([group, resources]) => ({ apiGroups: [group], resources: [...resources].sort(), verbs }));
}

/** The ClusterRole's rules for Conductor's controllers over the given catalog. */
export function controllerClusterRules(catalog: Pick<Catalog, 'adminKinds' | 'claimKinds' | 'concreteKinds' | 'crds'>): PolicyRule[] {
  const admin = catalog.adminKinds;
  const statusOf = (k: AnyKind) => `${k.plural}/status`;
  const withStatus = admin.filter((k) => k.plural === 'providers' || k.plural === 'claimquotas');
  const created = admin.filter((k) => k.plural === 'schedulerprofiles');
  const crdNames = catalog
    .crds()
    .map((c) => c.metadata.name ?? '')
    .sort();
  return [
    // Conductor's kinds.
    ...perGroup(admin, (k) => k.plural, READ),
    ...perGroup(created, (k) => k.plural, ['create']),
    ...perGroup(withStatus, statusOf, STATUS_WRITE),
    ...perGroup(catalog.claimKinds, (k) => k.plural, [...READ, 'update', 'patch']),
    ...perGroup(catalog.claimKinds, statusOf, STATUS_WRITE),
    ...perGroup(catalog.concreteKinds, (k) => k.plural, [...READ, 'create', 'update', 'patch', 'delete']),
    ...perGroup(catalog.concreteKinds, statusOf, STATUS_WRITE),
    // Kubernetes' kinds.
    { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: [...READ, 'create', 'update', 'patch', 'delete'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'update', 'patch'] },
    { apiGroups: [''], resources: ['namespaces'], verbs: [...READ, 'create'] },
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['list', 'watch', 'create'] },
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'update', 'patch'], resourceNames: crdNames },
  ];
}

/** The Role's rules in `conductor-system`: the leader-election Lease. */
export function controllerLeaseRules(): PolicyRule[] {
  return [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }];
}

/** The namespace of the Role (and of the Deployment and ServiceAccount). */
export const CONTROLLERS_NAMESPACE = SYSTEM_NAMESPACE;
