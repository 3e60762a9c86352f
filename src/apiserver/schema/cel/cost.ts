/**
 * Static cost estimation of x-kubernetes-validations rules, as Kubernetes does it when a CRD
 * is created or updated: each rule's worst-case cost, from the sizes the schema allows
 * (maxLength, maxItems, maxProperties; without them, as many as fit in one request), times
 * how often the rule may run (the product of the maxItems/maxProperties of the lists and maps
 * above it), must stay under a per-rule budget, and the sum of all rules of a version's schema
 * under a per-CRD budget. A CRD that Conductor accepts therefore installs on a cluster, and one
 * that a cluster refuses is refused here with the same message.
 *
 * The unit costs follow CEL's cost model (an identifier or field selection costs 1, a literal
 * 0, a function call 1 plus its arguments, a string operation a tenth of the string's length,
 * a comprehension its body per element); the figures are this project's estimate of it, kept
 * conservative, not a port of Kubernetes' estimator — see README.md for what is approximated.
 */
import type { ParseResult } from '@marcbachmann/cel-js';
import type { SchemaNode } from '../node.js';
import { escapePropertyName } from './escape.js';

/** Kubernetes' largest request body, which bounds every unbounded size. */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
/** The largest estimated cost of one rule (times how often it runs). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** The largest estimated cost of all rules of one version's schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;
/**
 * A comprehension's fixed parts, by macro: the accumulator's initial value, what each iteration
 * costs besides the body (the loop condition and the accumulator step) and the result.
 */
const MACRO_COSTS: Record<string, { init: number; perIteration: number; result: number }> = {
  all: { init: 0, perIteration: 3, result: 1 },
  exists: { init: 0, perIteration: 4, result: 1 },
  exists_one: { init: 0, perIteration: 2, result: 2 },
  existsOne: { init: 0, perIteration: 2, result: 2 },
  // The accumulator grows by a one-element list per kept element.
  map: { init: LIST_CREATE, perIteration: 1 + LIST_CREATE, result: 1 },
  filter: { init: LIST_CREATE, perIteration: 2 + LIST_CREATE, result: 1 },
};
const UNBOUNDED_STRING = MAX_REQUEST_BYTES - 2;

/** What the estimator knows of a value: its kind and the most elements (characters, items, entries) it may have. */
export type Shape =
  | { readonly t: 'string' | 'bytes'; readonly max: number }
  | { readonly t: 'list'; readonly max: number; readonly elem: Shape }
  | { readonly t: 'map'; readonly max: number; readonly key: Shape; readonly value: Shape }
  | { readonly t: 'object'; readonly fields: ReadonlyMap<string, Shape> }
  | { readonly t: 'scalar' }
  | { readonly t: 'dyn' };

const SCALAR: Shape = { t: 'scalar' };
const DYN: Shape = { t: 'dyn' };
const ANY_STRING: Shape = { t: 'string', max: UNBOUNDED_STRING };

/** The most items of a list whose items serialize to at least `minSize` bytes. */
const listItemsFromMinSize = (minSize: number) => Math.floor((MAX_REQUEST_BYTES - 2) / (minSize + 1));
/** The most entries of a map whose values serialize to at least `minSize` bytes. */
const mapEntriesFromMinSize = (minSize: number) => Math.floor((MAX_REQUEST_BYTES - 2) / (minSize + 6));

const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? Math.floor(x) : undefined);

interface Typed {
  shape: Shape;
  /** The fewest bytes a value of this node serializes to. */
  minSize: number;
}

/** A ShapeCache remembers each node's shape (a schema is walked once per CRD write). */
export class ShapeCache {
  private readonly cache = new Map<SchemaNode, Typed>();

  of(node: SchemaNode): Typed {
    const hit = this.cache.get(node);
    if (hit) return hit;
    const typed = this.compute(node);
    this.cache.set(node, typed);
    return typed;
  }

  private compute(node: SchemaNode): Typed {
    const s = node.schema;
    if (node.intOrString) return { shape: { t: 'dyn' }, minSize: 1 };
    const maxLength = num(s.maxLength);
    switch (node.type) {
      case 'string': {
        if (node.format === 'byte') return { shape: { t: 'bytes', max: maxLength ?? UNBOUNDED_STRING }, minSize: 2 };
        if (['date', 'date-time', 'duration'].includes(node.format)) return { shape: SCALAR, minSize: 2 };
        const enumMax = Array.isArray(s.enum) ? Math.max(0, ...s.enum.map((e) => (typeof e === 'string' ? e.length : 0))) : undefined;
        return { shape: { t: 'string', max: maxLength !== undefined ? maxLength * 4 : (enumMax ?? UNBOUNDED_STRING) }, minSize: 2 };
      }
      case 'boolean':
        return { shape: SCALAR, minSize: 4 };
      case 'integer':
      case 'number':
        return { shape: SCALAR, minSize: 1 };
      case 'array': {
        if (!node.items) return { shape: DYN, minSize: 2 };
        const item = this.of(node.items);
        return { shape: { t: 'list', max: num(s.maxItems) ?? listItemsFromMinSize(item.minSize), elem: item.shape }, minSize: 2 };
      }
      case 'object': {
        if (node.additional) {
          const value = this.of(node.additional);
          return { shape: { t: 'map', max: num(s.maxProperties) ?? mapEntriesFromMinSize(value.minSize), key: ANY_STRING, value: value.shape }, minSize: 2 };
        }
        const fields = new Map<string, Shape>();
        const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
        let minSize = 2;
        for (const [name, child] of node.properties ?? []) {
          const typed = this.of(child);
          const celName = escapePropertyName(name);
          if (celName !== undefined) fields.set(celName, typed.shape);
          if (required.has(name) && !child.hasDefault) minSize += name.length + typed.minSize + 4;
        }
        if (node.resourceRoot) {
          for (const name of ['apiVersion', 'kind']) if (!fields.has(name)) fields.set(name, ANY_STRING);
          if (!fields.has('metadata'))
            fields.set('metadata', {
              t: 'object',
              fields: new Map([
                ['name', ANY_STRING],
                ['generateName', ANY_STRING],
              ]),
            });
        }
        return { shape: { t: 'object', fields }, minSize };
      }
      default:
        return { shape: DYN, minSize: 1 };
    }
  }
}

/** The most elements of a sized shape (characters, items, entries); undefined for others. */
function sizeOf(shape: Shape): number | undefined {
  return shape.t === 'string' || shape.t === 'bytes' || shape.t === 'list' || shape.t === 'map' ? shape.max : undefined;
}
/** Like sizeOf, with an unknown value taken as large as a request allows. */
const sizeOrMax = (shape: Shape) => sizeOf(shape) ?? UNBOUNDED_STRING;

interface Estimate {
  cost: number;
  shape: Shape;
}

type Node = { op: string; args: unknown };
const isNode = (x: unknown): x is Node => typeof x === 'object' && x !== null && typeof (x as Node).op === 'string';

/** String methods whose cost grows with the receiver's length (the runtime meter charges these too). */
export const TRAVERSING_STRING_METHODS: ReadonlySet<string> = new Set([
  'lowerAscii',
  'upperAscii',
  'trim',
  'replace',
  'split',
  'join',
  'substring',
  'charAt',
  'indexOf',
  'lastIndexOf',
  'reverse',
]);
/** List methods whose cost grows with the list's length (the runtime meter charges these too). */
export const TRAVERSING_LIST_METHODS: ReadonlySet<string> = new Set([
  'isSorted',
  'sum',
  'min',
  'max',
  'indexOf',
  'lastIndexOf',
  'sort',
  'distinct',
  'reverse',
  'flatten',
  'slice',
]);

/**
 * Estimates the worst-case cost of a parsed expression, given the shapes of its variables
 * (`self`, `oldSelf`).
 */
export function estimateCost(program: ParseResult, vars: ReadonlyMap<string, Shape>): number {
  return Math.ceil(estimate(program.ast, vars, 0).cost);
}

function estimate(ast: unknown, vars: ReadonlyMap<string, Shape>, depth: number): Estimate {
  if (!isNode(ast) || depth > 200) return { cost: 0, shape: DYN };
  const sub = (x: unknown) => estimate(x, vars, depth + 1);
  const a = ast.args;
  const list = Array.isArray(a) ? (a as unknown[]) : [];
  switch (ast.op) {
    case 'value':
      if (typeof a === 'string') return { cost: 0, shape: { t: 'string', max: a.length } };
      if (a instanceof Uint8Array) return { cost: 0, shape: { t: 'bytes', max: a.length } };
      return { cost: 0, shape: SCALAR };
    case 'id':
      return { cost: 1, shape: (typeof a === 'string' && vars.get(a)) || DYN };
    case '.':
    case '.?': {
      const obj = sub(list[0]);
      return { cost: obj.cost + 1, shape: fieldOf(obj.shape, String(list[1])) };
    }
    case '[]':
    case '[?]': {
      const obj = sub(list[0]);
      const idx = sub(list[1]);
      const shape = obj.shape.t === 'list' ? obj.shape.elem : obj.shape.t === 'map' ? obj.shape.value : DYN;
      return { cost: obj.cost + idx.cost + 1, shape };
    }
    case 'list': {
      const items = list.map(sub);
      return { cost: LIST_CREATE + sum(items), shape: { t: 'list', max: items.length, elem: items[0]?.shape ?? DYN } };
    }
    case 'map': {
      const entries = list.flatMap((e) => (Array.isArray(e) ? (e as unknown[]).map(sub) : [sub(e)]));
      return { cost: MAP_CREATE + sum(entries), shape: { t: 'map', max: Math.ceil(entries.length / 2), key: DYN, value: DYN } };
    }
    case '&&':
    case '||': {
      const [l, r] = list.map(sub);
      return { cost: (l?.cost ?? 0) + (r?.cost ?? 0), shape: SCALAR };
    }
    case '?:': {
      const [c, t, f] = list.map(sub);
      return { cost: (c?.cost ?? 0) + Math.max(t?.cost ?? 0, f?.cost ?? 0), shape: t?.shape ?? DYN };
    }
    case '!_':
    case '-_': {
      const x = sub(a);
      return { cost: x.cost + 1, shape: SCALAR };
    }
    case 'in': {
      const [el, coll] = list.map(sub);
      const linear = coll?.shape.t === 'list' ? coll.shape.max : coll?.shape.t === 'dyn' ? listItemsFromMinSize(1) : 0;
      return { cost: 1 + (el?.cost ?? 0) + (coll?.cost ?? 0) + linear, shape: SCALAR };
    }
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return binary(list.map(sub), 'compare');
    case '+':
      return binary(list.map(sub), 'concat');
    case '-':
    case '*':
    case '/':
    case '%':
      return binary(list.map(sub), 'arith');
    case 'call': {
      const name = String(list[0]);
      const args = Array.isArray(list[1]) ? (list[1] as unknown[]) : [];
      if (name === 'has') {
        const target = args[0];
        const obj = isNode(target) && Array.isArray(target.args) ? sub((target.args as unknown[])[0]) : sub(target);
        return { cost: obj.cost + 1, shape: SCALAR };
      }
      const ests = args.map(sub);
      if (name === 'matches' && ests.length === 2) return { cost: sum(ests) + regexCost(ests[0].shape, ests[1].shape), shape: SCALAR };
      return { cost: 1 + sum(ests), shape: callShape(name, ests) };
    }
    case 'rcall': {
      const name = String(list[0]);
      const args = Array.isArray(list[2]) ? (list[2] as unknown[]) : [];
      const recv = sub(list[1]);
      if (name in MACRO_COSTS && args.length >= 2 && isNode(args[0]) && args[0].op === 'id')
        return comprehension(name, recv, String(args[0].args), args.slice(1), vars, depth);
      const ests = args.map(sub);
      const base = 1 + recv.cost + sum(ests);
      const r = recv.shape;
      // String searches cost their traversal (no call cost of their own).
      if ((r.t === 'string' || r.t === 'dyn') && (name === 'contains' || name === 'startsWith' || name === 'endsWith')) {
        const traversed = name === 'contains' ? sizeOrMax(r) : sizeOrMax(ests[0]?.shape ?? DYN);
        return { cost: base - 1 + Math.ceil(traversed * STRING_TRAVERSAL), shape: SCALAR };
      }
      if ((name === 'matches' || name === 'find' || name === 'findAll') && ests.length >= 1) {
        return {
          cost: base - 1 + regexCost(r, ests[0].shape),
          shape: name === 'findAll' ? { t: 'list', max: sizeOrMax(r), elem: r } : name === 'find' ? r : SCALAR,
        };
      }
      if (name === 'size') return { cost: base, shape: SCALAR };
      if ((r.t === 'string' || r.t === 'dyn') && TRAVERSING_STRING_METHODS.has(name)) {
        const shape: Shape = name === 'split' ? { t: 'list', max: sizeOrMax(r), elem: r } : name === 'indexOf' || name === 'lastIndexOf' ? SCALAR : r;
        return { cost: base + Math.ceil(sizeOrMax(r) * STRING_TRAVERSAL), shape };
      }
      if (r.t === 'list' && TRAVERSING_LIST_METHODS.has(name))
        return { cost: base + r.max, shape: ['sum', 'min', 'max', 'isSorted', 'indexOf', 'lastIndexOf'].includes(name) ? r.elem : r };
      return { cost: base, shape: callShape(name, ests) };
    }
    default: {
      const parts = list.filter(isNode).map(sub);
      return { cost: 1 + sum(parts), shape: DYN };
    }
  }
}

function sum(es: readonly Estimate[]): number {
  return es.reduce((n, e) => n + e.cost, 0);
}

function fieldOf(shape: Shape, name: string): Shape {
  if (shape.t === 'object') return shape.fields.get(name) ?? DYN;
  if (shape.t === 'map') return shape.value;
  return DYN;
}

function regexCost(str: Shape, regex: Shape): number {
  return Math.ceil((1 + sizeOrMax(str)) * STRING_TRAVERSAL) * Math.ceil(sizeOrMax(regex) * REGEX_LENGTH);
}

function callShape(name: string, args: readonly Estimate[]): Shape {
  if (name === 'string') {
    const s = args[0]?.shape;
    return s && (s.t === 'string' || s.t === 'bytes') ? { t: 'string', max: s.max } : s?.t === 'scalar' ? { t: 'string', max: 40 } : ANY_STRING;
  }
  if (['int', 'uint', 'double', 'bool', 'size', 'duration', 'timestamp', 'type'].includes(name)) return SCALAR;
  if (name === 'dyn') return args[0]?.shape ?? DYN;
  return DYN;
}

/** Comparisons, concatenation and arithmetic: strings and collections cost by their size. */
function binary([l, r]: Estimate[], kind: 'compare' | 'concat' | 'arith'): Estimate {
  const lc = l?.cost ?? 0;
  const rc = r?.cost ?? 0;
  const ls = l?.shape ?? DYN;
  const rs = r?.shape ?? DYN;
  const sized = (s: Shape) => s.t === 'string' || s.t === 'bytes' || s.t === 'list' || s.t === 'map';
  if (kind === 'arith' || (!sized(ls) && !sized(rs))) {
    return { cost: 1 + lc + rc, shape: kind === 'concat' && ls.t === 'dyn' ? DYN : kind === 'compare' ? SCALAR : ls };
  }
  const lmax = sizeOrMax(ls);
  const rmax = sizeOrMax(rs);
  if (kind === 'concat') {
    const max = lmax + rmax;
    const shape: Shape = ls.t === 'list' ? { t: 'list', max, elem: ls.elem } : ls.t === 'bytes' ? { t: 'bytes', max } : { t: 'string', max };
    return { cost: 1 + lc + rc + Math.ceil(max * STRING_TRAVERSAL), shape };
  }
  const traversed = Math.min(lmax, rmax);
  const perElement = ls.t === 'list' || ls.t === 'map' ? 1 : STRING_TRAVERSAL;
  return { cost: 1 + lc + rc + Math.ceil(traversed * perElement), shape: SCALAR };
}

/** all/exists/exists_one/map/filter: the range once, the accumulator, then the body (and transform) per element. */
function comprehension(name: string, range: Estimate, variable: string, bodies: unknown[], vars: ReadonlyMap<string, Shape>, depth: number): Estimate {
  const fixed = MACRO_COSTS[name];
  const r = range.shape;
  const n = r.t === 'list' || r.t === 'map' ? r.max : listItemsFromMinSize(1);
  const elem = r.t === 'list' ? r.elem : r.t === 'map' ? r.key : DYN;
  const inner = new Map(vars).set(variable, elem);
  const each = bodies.map((b) => estimate(b, inner, depth + 1));
  const perElement = fixed.perIteration + sum(each);
  const shape: Shape =
    name === 'map' ? { t: 'list', max: n, elem: each[each.length - 1]?.shape ?? DYN } : name === 'filter' ? { t: 'list', max: n, elem } : SCALAR;
  return { cost: range.cost + fixed.init + fixed.result + n * perElement, shape };
}

/** How Kubernetes words a cost over its budget: "<what> exceeds budget by factor of <f> (…)". */
export function costErrorMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
