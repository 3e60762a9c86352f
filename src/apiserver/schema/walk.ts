/**
 * The checks ajv cannot express, done by walking the object along the schema tree:
 * x-kubernetes-list-type set/map uniqueness, embedded-resource apiVersion/kind, and the
 * x-kubernetes-validations CEL rules (with oldSelf correlated the way Kubernetes correlates
 * it: by property, by map key, and by key for list-type=map lists only). Subtrees with
 * nothing to check are skipped.
 */
import type { StatusCause } from '../../machinery/errors.js';
import { isObject, type SchemaNode } from './node.js';
import { childPath, duplicate, indexPath, invalid, keyPath, required } from './causes.js';
import { CostBudget, evaluateRule, ValueConverter, type NodeRule } from './cel/index.js';

/** Stable identity of a JSON value, for set/map-list uniqueness. */
function identity(v: unknown, depth = 0): string {
  if (v === undefined) return 'u';
  if (v === null || typeof v !== 'object') return `${typeof v}:${String(v)}`;
  if (depth > 64) return 'deep';
  if (Array.isArray(v)) return `[${v.map((x) => identity(x, depth + 1)).join(',')}]`;
  const rec = v as Record<string, unknown>;
  return `{${Object.keys(rec)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${identity(rec[k], depth + 1)}`)
    .join(',')}}`;
}

function mapKeyOf(item: Record<string, unknown>, keys: readonly string[]): string {
  return keys.map((k) => identity(item[k])).join('\u0000');
}

function checkListSet(list: unknown[], path: string, out: StatusCause[]): void {
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const id = identity(item);
    if (seen.has(id)) out.push(duplicate(indexPath(path, i), item));
    else seen.add(id);
  });
}

function checkListMap(node: SchemaNode, list: unknown[], path: string, out: StatusCause[]): void {
  let bad = false;
  list.forEach((item, i) => {
    if (item !== null && !isObject(item)) {
      out.push(invalid(indexPath(path, i), item, 'must be an object for an array of list-type map'));
      bad = true;
    }
  });
  if (bad || node.listMapKeys.length === 0) return;
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (!isObject(item)) return;
    const id = mapKeyOf(item, node.listMapKeys);
    if (seen.has(id)) {
      const keyValues: Record<string, unknown> = {};
      for (const k of node.listMapKeys) if (k in item) keyValues[k] = item[k];
      out.push(duplicate(indexPath(path, i), keyValues));
    } else seen.add(id);
  });
}

const GROUP_VERSION = /^(?:[^/]+\/)?[^/]+$/;

function checkEmbedded(value: Record<string, unknown>, path: string, out: StatusCause[]): void {
  if (!('apiVersion' in value)) out.push(required(childPath(path, 'apiVersion'), 'must not be empty'));
  if (!('kind' in value)) out.push(required(childPath(path, 'kind'), 'must not be empty'));
  const apiVersion = value.apiVersion;
  if ('apiVersion' in value) {
    if (typeof apiVersion !== 'string') out.push(invalid(childPath(path, 'apiVersion'), apiVersion, 'must be a string'));
    else if (apiVersion === '') out.push(invalid(childPath(path, 'apiVersion'), apiVersion, 'must not be empty'));
    else if (!GROUP_VERSION.test(apiVersion)) out.push(invalid(childPath(path, 'apiVersion'), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  }
  const kind = value.kind;
  if ('kind' in value) {
    if (typeof kind !== 'string') out.push(invalid(childPath(path, 'kind'), kind, 'must be a string'));
    else if (kind === '') out.push(invalid(childPath(path, 'kind'), kind, 'must not be empty'));
  }
  if ('metadata' in value && value.metadata !== null && !isObject(value.metadata)) {
    out.push(invalid(childPath(path, 'metadata'), value.metadata, 'must be an object'));
  }
}

/**
 * A Walker runs the structural or the rule checks over one object. In rules mode it carries
 * one CostBudget through the walk: the rules of the object together may cost at most
 * Kubernetes' per-object budget; once one evaluation does not fit, no further rule is run.
 */
export class Walker {
  private readonly converter = new ValueConverter();
  private readonly budget = new CostBudget();

  constructor(
    private readonly mode: 'structure' | 'rules',
    private readonly rules: ReadonlyMap<SchemaNode, readonly NodeRule[]>,
    private readonly out: StatusCause[],
  ) {}

  walk(node: SchemaNode, value: unknown, path: string, old: unknown, hasOld: boolean, depth = 0): void {
    if (value === undefined || value === null || depth > 200 || this.budget.exhausted) return;
    if (this.mode === 'structure') this.structure(node, value, path);
    else this.evaluate(node, value, path, old, hasOld);

    if (isObject(value)) {
      const correlate = hasOld && isObject(old) && !node.mapAtomic;
      for (const [k, v] of Object.entries(value)) {
        const prop = node.properties?.get(k);
        const child = prop ?? node.additional;
        if (!child || !child.needsWalk) continue;
        if (node.resourceRoot && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
        const childHasOld = correlate && Object.prototype.hasOwnProperty.call(old, k);
        this.walk(child, v, prop ? childPath(path, k) : keyPath(path, k), childHasOld ? old[k] : undefined, childHasOld, depth + 1);
      }
    } else if (Array.isArray(value)) {
      const items = node.items;
      if (!items || !items.needsWalk) return;
      const oldByKey = this.oldItemsByKey(node, old, hasOld);
      value.forEach((item, i) => {
        let oldItem: unknown;
        let itemHasOld = false;
        if (oldByKey && isObject(item)) {
          const id = mapKeyOf(item, node.listMapKeys);
          itemHasOld = oldByKey.has(id);
          oldItem = oldByKey.get(id);
        }
        this.walk(items, item, indexPath(path, i), oldItem, itemHasOld, depth + 1);
      });
    }
  }

  private oldItemsByKey(node: SchemaNode, old: unknown, hasOld: boolean): Map<string, unknown> | undefined {
    if (this.mode !== 'rules' || !hasOld || node.listType !== 'map' || !Array.isArray(old)) return undefined;
    const byKey = new Map<string, unknown>();
    for (const item of old) if (isObject(item)) byKey.set(mapKeyOf(item, node.listMapKeys), item);
    return byKey;
  }

  private structure(node: SchemaNode, value: unknown, path: string): void {
    if (node.embedded && isObject(value)) checkEmbedded(value, path, this.out);
    if (Array.isArray(value)) {
      if (node.listType === 'set') checkListSet(value, path, this.out);
      else if (node.listType === 'map') checkListMap(node, value, path, this.out);
    }
  }

  private evaluate(node: SchemaNode, value: unknown, path: string, old: unknown, hasOld: boolean): void {
    const rules = this.rules.get(node);
    if (!rules) return;
    const self = this.converter.convert(node, value);
    const oldSelf = hasOld ? this.converter.convert(node, old) : undefined;
    const withOld = hasOld && old !== null && old !== undefined;
    for (const rule of rules) {
      if (this.budget.exhausted) return;
      const cause = evaluateRule(rule, {
        self,
        oldSelf,
        hasOld: withOld,
        path,
        failurePath: rule.relocate ? rule.relocate(path) : path,
        schemaType: node.type,
        budget: this.budget,
      });
      if (cause) this.out.push(cause);
    }
  }
}
