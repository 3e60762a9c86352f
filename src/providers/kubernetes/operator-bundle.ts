/**
 * Automatic operator installation: a KubernetesObject may carry `spec.forProvider.operatorBundle`
 * — the manifests that install an operator (its CRDs, Namespace, RBAC, Deployment). When the
 * target does not serve the manifest's kind, the bundle is applied (CRDs first, then
 * Namespaces, then the rest in the order given) and the object waits until the kind's CRD is
 * Established. The bundle's objects are never deleted by Conductor: other objects may use the
 * operator.
 */
import { isPlainObject, parseApiVersion, type JsonObject } from '../../machinery/object.js';
import type { KubernetesObject } from './kinds.js';
import { checkedManifest, type Desired } from './manifest.js';
import { describeKey, type ObjectKey, type TargetClient } from './target-client.js';

const CRD_API_VERSION = 'apiextensions.k8s.io/v1';
const CRD_KIND = 'CustomResourceDefinition';

/** bundleOf reads a resource's operator bundle (none: an empty list), each manifest checked; a ManifestError names the one at fault. */
export function bundleOf(resource: KubernetesObject): Desired[] {
  const manifests = resource.spec.forProvider.operatorBundle?.manifests ?? [];
  const objects = manifests.map((m, i) => checkedManifest(m, `spec.forProvider.operatorBundle.manifests[${i}]`));
  const rank = (d: Desired) => (d.key.kind === CRD_KIND ? 0 : d.key.kind === 'Namespace' && d.key.apiVersion === 'v1' ? 1 : 2);
  // A stable sort: within each rank, the order given.
  return objects
    .map((d, i) => ({ d, i }))
    .sort((a, b) => rank(a.d) - rank(b.d) || a.i - b.i)
    .map(({ d }) => d);
}

/** crdDefining finds the bundle's CRD that defines `kind` in `apiVersion` (its group, names.kind and one of its versions). */
export function crdDefining(bundle: readonly Desired[], key: Pick<ObjectKey, 'apiVersion' | 'kind'>): Desired | undefined {
  const { group, version } = parseApiVersion(key.apiVersion);
  return bundle.find(({ key: k, manifest }) => {
    if (k.apiVersion !== CRD_API_VERSION || k.kind !== CRD_KIND) return false;
    const spec = isPlainObject(manifest.spec) ? manifest.spec : {};
    const names = isPlainObject(spec.names) ? spec.names : {};
    const versions = Array.isArray(spec.versions) ? spec.versions : [];
    return spec.group === group && names.kind === key.kind && versions.some((v) => isPlainObject(v) && v.name === version);
  });
}

/** isEstablished tells whether a live CRD's Established condition is True. */
export function isEstablished(crd: JsonObject | undefined): boolean {
  const status = crd && isPlainObject(crd.status) ? crd.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return conditions.some((c) => isPlainObject(c) && c.type === 'Established' && c.status === 'True');
}

/** A BundleWaitError says the bundle is applied and the kind is not served yet: the create is tried again later. */
export class BundleWaitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleWaitError';
  }
}

/**
 * installBundle applies the bundle in the target for the object `wanted` names, then returns
 * once the CRD defining its kind is Established; until then it throws a BundleWaitError
 * saying what it waits for. A bundle with no CRD for the kind (an operator that installs its
 * CRDs itself) waits for the target to serve the kind.
 */
export async function installBundle(target: TargetClient, bundle: readonly Desired[], wanted: ObjectKey, signal?: AbortSignal): Promise<void> {
  for (const { key, manifest } of bundle) await target.apply(key, manifest, signal);
  const crd = crdDefining(bundle, wanted);
  const what = `${wanted.kind} (${wanted.apiVersion})`;
  if (!crd) {
    throw new BundleWaitError(
      `applied the operator bundle (${bundle.length} objects) in the target, which does not serve ${what} yet and the bundle has no CRD for it: waiting for the operator to install it`,
    );
  }
  const live = await target.get(crd.key, signal);
  if (!isEstablished(live)) {
    throw new BundleWaitError(`applied the operator bundle (${bundle.length} objects) in the target: waiting for ${describeKey(crd.key)} to be Established`);
  }
}
