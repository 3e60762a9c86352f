/**
 * Names used inside the OpenAPI documents: schema (definition) names, operation ids and
 * tags. Schema names follow the Kubernetes scheme so that tools which recognise
 * `io.k8s.api.core.v1.ConfigMap` or `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`
 * keep working; CRD kinds use the reversed group (`io.conductor.storage.v1alpha1.MySQLInstance`).
 */
import type { ResourceType } from '../registry/resource-type.js';

/** The package prefix of the shared apimachinery types (ObjectMeta, Status, ...). */
export const META_PREFIX = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** metaName names a shared apimachinery schema: `metaName('ObjectMeta')`. */
export function metaName(kind: string): string {
  return `${META_PREFIX}.${kind}`;
}

/**
 * The schema package of a built-in group. Kubernetes names its packages after the first
 * label of the group (`rbac.authorization.k8s.io` → `rbac`); the core group is `core`.
 */
function builtinPackage(group: string, version: string): string {
  if (group === '') return `io.k8s.api.core.${version}`;
  if (group === 'apiextensions.k8s.io') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
  if (group === 'apiregistration.k8s.io') return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}`;
  const first = group.split('.')[0];
  return `io.k8s.api.${first}.${version}`;
}

/** The schema package of a CRD group: its labels reversed (`storage.conductor.io` → `io.conductor.storage`). */
function crdPackage(group: string, version: string): string {
  return `${group.split('.').reverse().join('.')}.${version}`;
}

/** schemaName names the schema of a resource type's kind (or of another kind in its package). */
export function schemaName(rt: Pick<ResourceType, 'group' | 'version' | 'source'>, kind: string): string {
  const pkg = rt.source.type === 'builtin' ? builtinPackage(rt.group, rt.version) : crdPackage(rt.group, rt.version);
  return `${pkg}.${kind}`;
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

/** groupWord is the group as one PascalCase word: `Core`, `StorageConductorIo`, `RbacAuthorization`. */
export function groupWord(group: string): string {
  if (group === '') return 'Core';
  return pascal(group.replace(/\.k8s\.io$/, ''));
}

/** tagOf is the operation tag of a group-version: `core_v1`, `storageConductorIo_v1alpha1`. */
export function tagOf(group: string, version: string): string {
  const word = groupWord(group);
  return `${word[0].toLowerCase()}${word.slice(1)}_${version}`;
}

/**
 * operationIdOf builds a unique operation id in the Kubernetes style, e.g.
 * `listStorageConductorIoV1alpha1NamespacedMySQLInstance`, `patchCoreV1NamespaceStatus`.
 */
export function operationIdOf(
  verb: string,
  rt: Pick<ResourceType, 'group' | 'version' | 'kind'>,
  opts: { namespaced: boolean; subresource?: string; allNamespaces?: boolean },
): string {
  return [
    verb,
    groupWord(rt.group),
    pascal(rt.version),
    opts.namespaced ? 'Namespaced' : '',
    rt.kind,
    opts.subresource ? pascal(opts.subresource) : '',
    opts.allNamespaces ? 'ForAllNamespaces' : '',
  ].join('');
}
