/**
 * Pruning removes the fields a structural schema does not declare, as Kubernetes does for
 * custom resources: x-kubernetes-preserve-unknown-fields keeps unknown fields (while still
 * pruning inside declared ones), resource roots keep apiVersion/kind/metadata, and the
 * metadata of the object and of an embedded resource keeps only ObjectMeta fields (kube
 * reports the others as `unknown field "metadata.x"` and drops them).
 */
import { isObject, type SchemaNode } from './node.js';
import { childPath, indexPath, keyPath } from './causes.js';

/** The fields of ObjectMeta; anything else under a resource's metadata is unknown. */
export const OBJECT_META_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** A Pruner collects (and optionally removes) the unknown fields of one object. */
export class Pruner {
  readonly removed: string[] = [];

  constructor(private readonly mutate: boolean) {}

  private drop(obj: Record<string, unknown>, key: string, path: string): void {
    this.removed.push(childPath(path, key));
    if (this.mutate) delete obj[key];
  }

  /** Prunes value against node (undefined node: no schema, every object field is unknown). */
  prune(node: SchemaNode | undefined, value: unknown, path: string, depth = 0): void {
    if (depth > 200) return;
    if (node?.preserveUnknown) {
      this.skipPrune(node, value, path, depth);
      return;
    }
    if (isObject(value)) {
      for (const k of Object.keys(value)) {
        const v = value[k];
        if (node?.resourceRoot && META_FIELDS.has(k)) {
          if (k === 'metadata') this.pruneMeta(v, childPath(path, k));
          continue;
        }
        const prop = node?.properties?.get(k);
        if (prop) this.prune(prop, v, childPath(path, k), depth + 1);
        else if (node?.additional) this.prune(node.additional, v, keyPath(path, k), depth + 1);
        else if (node?.additionalAny) this.prune(undefined, v, keyPath(path, k), depth + 1);
        else this.drop(value, k, path);
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => this.prune(node?.items, item, indexPath(path, i), depth + 1));
    }
  }

  /** Below x-kubernetes-preserve-unknown-fields: unknown fields stay, declared ones are pruned. */
  private skipPrune(node: SchemaNode, value: unknown, path: string, depth: number): void {
    if (isObject(value)) {
      for (const k of Object.keys(value)) {
        const v = value[k];
        if (node.resourceRoot && META_FIELDS.has(k)) {
          if (k === 'metadata') this.pruneMeta(v, childPath(path, k));
          continue;
        }
        const prop = node.properties?.get(k);
        if (prop) this.prune(prop, v, childPath(path, k), depth + 1);
        else if (node.additional) this.prune(node.additional, v, keyPath(path, k), depth + 1);
      }
    } else if (Array.isArray(value) && node.items) {
      const items = node.items;
      value.forEach((item, i) => this.skipPrune(items, item, indexPath(path, i), depth + 1));
    }
  }

  private pruneMeta(meta: unknown, path: string): void {
    if (!isObject(meta)) return;
    for (const k of Object.keys(meta)) if (!OBJECT_META_FIELDS.has(k)) this.drop(meta, k, path);
  }
}
