/**
 * Table output for `kubectl get`: a meta.k8s.io/v1 Table with the kind's printer columns,
 * NAME first and AGE last, dates shown as human durations like the Kubernetes server does.
 */
import { JSONPath } from 'jsonpath-plus';
import type { KObject, ListMeta } from '../../machinery/object.js';
import type { PrinterColumn, ResourceType } from '../registry/resource-type.js';
import { humanDuration, tableLayoutFor } from '../builtins/index.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: { cells: unknown[]; object?: unknown }[];
}

function columnsOf(rt: ResourceType): PrinterColumn[] {
  const cols = rt.printerColumns;
  const hasAge = cols.some((c) => c.jsonPath === '.metadata.creationTimestamp' || c.name.toLowerCase() === 'age');
  const name: PrinterColumn = {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'The unique name of the object in its namespace (metadata.name).',
    jsonPath: '.metadata.name',
  };
  const age: PrinterColumn = {
    name: 'Age',
    type: 'date',
    description: 'Time since the object was created (metadata.creationTimestamp).',
    jsonPath: '.metadata.creationTimestamp',
  };
  const layout = tableLayoutFor(rt);
  const leading = !layout.nameColumn || cols.some((c) => c.name.toLowerCase() === 'name') ? [] : [name];
  return [...leading, ...cols, ...(hasAge || !layout.ageColumn ? [] : [age])];
}

export function tableColumnDefinitions(rt: ResourceType): TableColumnDefinition[] {
  return columnsOf(rt).map((c) => ({
    name: c.name,
    type: c.type,
    format: c.format ?? '',
    description: c.description ?? '',
    priority: c.priority ?? 0,
  }));
}

export function toTable(rt: ResourceType, objects: KObject[], listMeta: ListMeta, include: IncludeObject, now = Date.now()): Table {
  const cols = columnsOf(rt);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: tableColumnDefinitions(rt),
    rows: objects.map((o) => ({
      cells: cols.map((c) => cellValue(c, o, now)),
      ...(include === 'None' ? {} : { object: include === 'Object' ? o : partialMetadata(o) }),
    })),
  };
}

function partialMetadata(o: KObject): unknown {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

function cellValue(c: PrinterColumn, o: KObject, now: number): unknown {
  let v: unknown;
  try {
    v = c.cell ? c.cell(o) : evalJsonPath(c.jsonPath ?? '', o);
  } catch {
    v = undefined;
  }
  // Kubernetes prints `<unknown>` for an unset creation time (AGE) and `<none>` for any other
  // column with no value, e.g. a Terminating column of an object not being deleted.
  if (v === undefined || v === null) return c.type === 'date' && c.jsonPath === '.metadata.creationTimestamp' ? '<unknown>' : '<none>';
  switch (c.type) {
    case 'date': {
      const t = typeof v === 'string' ? Date.parse(v) : NaN;
      return Number.isNaN(t) ? '<invalid>' : humanDuration(now - t);
    }
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : v;
    case 'string':
      return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
    default:
      return v;
  }
}

const pathCache = new Map<string, string>();

/**
 * Rewrites a Kubernetes JSONPath (`.metadata.annotations.example\\.com/name`, dots inside a
 * name escaped with a backslash) into jsonpath-plus syntax (`$.metadata.annotations['example.com/name']`).
 */
export function toJsonPathPlus(path: string): string {
  let out = '$';
  let i = path.startsWith('$') ? 1 : 0;
  while (i < path.length) {
    const c = path[i];
    if (c === '[') {
      // Brackets (indexes, filters) pass through as they are.
      let depth = 0;
      let j = i;
      for (; j < path.length; j++) {
        if (path[j] === '[') depth++;
        else if (path[j] === ']' && --depth === 0) break;
      }
      out += path.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === '.') i++;
    let name = '';
    while (i < path.length && path[i] !== '.' && path[i] !== '[') {
      if (path[i] === '\\' && i + 1 < path.length) {
        name += path[i + 1];
        i += 2;
      } else name += path[i++];
    }
    if (name === '') continue;
    out += /^[A-Za-z_$][\w$]*$/.test(name) || name === '*' ? `.${name}` : `[${JSON.stringify(name).replace(/^"|"$/g, "'")}]`;
  }
  return out;
}

/** Evaluates a Kubernetes-style JSONPath (`.status.phase`, `{.spec.x}`) against `obj`. */
export function evalJsonPath(path: string, obj: unknown): unknown {
  let p = pathCache.get(path);
  if (p === undefined) {
    p = path.trim();
    if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
    p = toJsonPathPlus(p);
    pathCache.set(path, p);
  }
  const found = JSONPath<unknown[]>({ path: p, json: obj as object, wrap: true, eval: 'safe' });
  if (!Array.isArray(found) || found.length === 0) return undefined;
  if (found.length === 1) return found[0];
  return found.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(',');
}
