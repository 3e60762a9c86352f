/**
 * The workload kinds of kubectl's default prune list that Conductor does not run.
 *
 * `kubectl apply --prune` without `--prune-allowlist` resolves a fixed list of kinds through
 * discovery (ConfigMap, Endpoints, Namespace, PersistentVolumeClaim, PersistentVolume, Pod,
 * ReplicationController, Secret, Service, batch Job and CronJob, networking Ingress, apps
 * DaemonSet, Deployment, ReplicaSet and StatefulSet) and fails before pruning anything when one
 * of them is not served ("no matches for kind"). Conductor serves the ones it does not run as
 * read-only kinds that are always empty: discovery lists them with the verbs get, list and
 * watch, so kubectl finds them and lists nothing to prune; every write is refused with 405
 * saying where such objects belong. The garbage collector and the namespace controller skip
 * them (they need delete and deletecollection).
 */
import type { KObject } from '../../machinery/object.js';
import type { ResourceType } from '../registry/resource-type.js';
import { resourceSchema } from './object-meta-schema.js';

/** The verbs served for a kind Conductor does not run: reads only (always empty). */
export const readOnlyVerbs: readonly string[] = ['get', 'list', 'watch'];

interface PruneKind {
  group: string;
  kind: string;
  resource: string;
  shortNames: string[];
  namespaced: boolean;
}

const PRUNE_KINDS: PruneKind[] = [
  { group: '', kind: 'Endpoints', resource: 'endpoints', shortNames: ['ep'], namespaced: true },
  { group: '', kind: 'PersistentVolumeClaim', resource: 'persistentvolumeclaims', shortNames: ['pvc'], namespaced: true },
  { group: '', kind: 'PersistentVolume', resource: 'persistentvolumes', shortNames: ['pv'], namespaced: false },
  { group: '', kind: 'Pod', resource: 'pods', shortNames: ['po'], namespaced: true },
  { group: '', kind: 'ReplicationController', resource: 'replicationcontrollers', shortNames: ['rc'], namespaced: true },
  { group: '', kind: 'Service', resource: 'services', shortNames: ['svc'], namespaced: true },
  { group: 'batch', kind: 'Job', resource: 'jobs', shortNames: [], namespaced: true },
  { group: 'batch', kind: 'CronJob', resource: 'cronjobs', shortNames: ['cj'], namespaced: true },
  { group: 'networking.k8s.io', kind: 'Ingress', resource: 'ingresses', shortNames: ['ing'], namespaced: true },
  { group: 'apps', kind: 'DaemonSet', resource: 'daemonsets', shortNames: ['ds'], namespaced: true },
  { group: 'apps', kind: 'Deployment', resource: 'deployments', shortNames: ['deploy'], namespaced: true },
  { group: 'apps', kind: 'ReplicaSet', resource: 'replicasets', shortNames: ['rs'], namespaced: true },
  { group: 'apps', kind: 'StatefulSet', resource: 'statefulsets', shortNames: ['sts'], namespaced: true },
];

/** The answer to a write of a kind Conductor does not run (the message of a 405). */
export function notRunMessage(rt: Pick<ResourceType, 'kind' | 'resource'>): string {
  return (
    `Conductor does not run ${rt.resource}: ${rt.kind} is served read-only and always empty, so that ` +
    `kubectl apply --prune finds its default kinds. Create ${rt.kind} objects in a Kubernetes cluster ` +
    `(for example through a KubernetesObject of the kubernetes provider).`
  );
}

/** Fresh ResourceTypes of the read-only, always empty kinds of kubectl's default prune list. */
export function pruneKindResourceTypes(): ResourceType[] {
  return PRUNE_KINDS.map((k) => ({
    group: k.group,
    version: 'v1',
    kind: k.kind,
    listKind: `${k.kind}List`,
    resource: k.resource,
    singular: k.kind.toLowerCase(),
    shortNames: [...k.shortNames],
    categories: [],
    namespaced: k.namespaced,
    subresources: { status: false },
    verbs: [...readOnlyVerbs],
    schema: resourceSchema(`Conductor does not run ${k.kind} objects: the kind is served read-only and always empty so that kubectl apply --prune finds it.`, {
      spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    }),
    printerColumns: [],
    tracksGeneration: false,
    structural: false,
    strategy: { validate: () => [], selectableFields: (_obj: KObject) => ({}) },
    source: { type: 'builtin' },
    refusedVerbMessage: notRunMessage(k),
  }));
}
