/**
 * A FieldSet is a set of field paths stored as a tree: each node is one path element and says
 * whether the path ending there is a member. It encodes to and decodes from the `FieldsV1`
 * wire format of `metadata.managedFields[].fieldsV1`.
 */
import type { JsonObject } from '../object.js';
import { isPlainObject } from '../object.js';
import type { FieldPath, PathElement } from './field-path.js';
import { compareStrings, decodeElement, encodeElement, fieldElement, pathToString, PathSyntaxError } from './field-path.js';

interface Node {
  element: PathElement;
  member: boolean;
  /** The members below; the shared NO_CHILDREN set when there are none (never mutated). */
  children: FieldSet;
}

/**
 * A FieldSet does set algebra over field paths. `insert` mutates; `union`, `difference` and
 * `intersection` return new sets and leave their operands alone.
 */
export class FieldSet {
  /** Nodes by encoded element; a node exists only when it is a member or has children. */
  private readonly nodes = new Map<string, Node>();
  /** True when the empty path (the root itself) is a member. */
  private root = false;

  static of(...paths: FieldPath[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /** Adds a path (mutates this set) and returns the set. */
  insert(path: FieldPath): this {
    if (this === NO_CHILDREN) throw new Error('the shared empty FieldSet cannot be changed');
    if (path.length === 0) {
      this.root = true;
      return this;
    }
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- a cursor walking down from this set
    let set: FieldSet = this;
    for (let i = 0; i < path.length; i++) {
      const pe = path[i];
      const key = encodeElement(pe);
      let node = set.nodes.get(key);
      if (!node) {
        node = { element: pe, member: false, children: NO_CHILDREN };
        set.nodes.set(key, node);
      }
      if (i === path.length - 1) {
        node.member = true;
      } else if (node.children === NO_CHILDREN) {
        node.children = new FieldSet();
      }
      set = node.children;
    }
    return this;
  }

  /**
   * Adds one element at this level with the given membership and members below it (mutates
   * this set; `children` is taken over, not copied). `key` must be the element's encoding.
   * For builders that walk a value level by level instead of inserting whole paths.
   */
  attach(key: string, element: PathElement, member: boolean, children: FieldSet | undefined): void {
    if (this === NO_CHILDREN) throw new Error('the shared empty FieldSet cannot be changed');
    const below = children && !children.isEmpty() ? children : NO_CHILDREN;
    if (!member && below === NO_CHILDREN) return;
    const existing = this.nodes.get(key);
    if (existing) {
      existing.member ||= member;
      existing.children = FieldSet.unionOf(existing.children, below);
      return;
    }
    this.nodes.set(key, { element, member, children: below });
  }

  /** True when the path is a member. */
  has(path: FieldPath): boolean {
    if (path.length === 0) return this.root;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- a cursor walking down from this set
    let set: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && set; i++) set = set.nodes.get(encodeElement(path[i]))?.children;
    return set?.nodes.get(encodeElement(path[path.length - 1]))?.member ?? false;
  }

  /** True when the element, taken from this set's level, is a member. */
  hasElement(pe: PathElement): boolean {
    return this.nodes.get(encodeElement(pe))?.member ?? false;
  }

  /** The members below the element, relative to it (empty when there are none). */
  childrenOf(pe: PathElement): FieldSet {
    const children = this.nodes.get(encodeElement(pe))?.children;
    return children && children !== NO_CHILDREN ? children : new FieldSet();
  }

  /** The members below a path, relative to it. */
  withPrefix(path: FieldPath): FieldSet {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- a cursor walking down from this set
    let set: FieldSet = this;
    for (const pe of path) set = set.childrenOf(pe);
    return set;
  }

  isEmpty(): boolean {
    return !this.root && this.nodes.size === 0;
  }

  /** The number of member paths. */
  get size(): number {
    let n = this.root ? 1 : 0;
    for (const node of this.nodes.values()) n += (node.member ? 1 : 0) + node.children.size;
    return n;
  }

  union(other: FieldSet): FieldSet {
    return FieldSet.fresh(FieldSet.unionOf(this, other));
  }

  intersection(other: FieldSet): FieldSet {
    return FieldSet.fresh(FieldSet.intersectionOf(this, other));
  }

  /** The paths of this set that are not members of `other` (path by path; descendants are not implied). */
  difference(other: FieldSet): FieldSet {
    return FieldSet.fresh(FieldSet.differenceOf(this, other));
  }

  /** True when some path is a member of both sets (the intersection is not empty). */
  intersects(other: FieldSet): boolean {
    if (this.root && other.root) return true;
    const [small, large] = this.nodes.size <= other.nodes.size ? [this, other] : [other, this];
    for (const [key, node] of small.nodes) {
      const o = large.nodes.get(key);
      if (o && ((node.member && o.member) || node.children.intersects(o.children))) return true;
    }
    return false;
  }

  equals(other: FieldSet): boolean {
    if (this === other) return true;
    if (this.root !== other.root || this.nodes.size !== other.nodes.size) return false;
    for (const [key, node] of this.nodes) {
      const o = other.nodes.get(key);
      if (!o || o.member !== node.member || !node.children.equals(o.children)) return false;
    }
    return true;
  }

  /**
   * Every member path, in the order Kubernetes lists them: at each level the members first
   * (sorted), then the paths below each child (sorted).
   */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    if (this.root) out.push([]);
    this.collect([], out);
    return out;
  }

  /** The keys of the nodes in canonical order (see compareElements), read from the keys. */
  private sortedKeys(): string[] {
    const keys = [...this.nodes.keys()];
    if (keys.length < 2) return keys;
    let fieldsOnly = true;
    let sorted = true;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (k.charCodeAt(0) !== 102 /* f */) fieldsOnly = false;
      if (i > 0 && keys[i - 1] >= k) sorted = false;
    }
    // Fields (the usual case) order by their keys, the `f:` prefix being common.
    if (fieldsOnly) return sorted ? keys : keys.sort();
    return keys.sort(compareKeys);
  }

  private collect(prefix: FieldPath, out: FieldPath[]): void {
    const nodes = this.sortedKeys().map((key) => this.nodes.get(key) as Node);
    for (const n of nodes) if (n.member) out.push([...prefix, n.element]);
    for (const n of nodes) n.children.collect([...prefix, n.element], out);
  }

  /** The members as Kubernetes path strings (`.data.key`), in `paths()` order. */
  toStrings(): string[] {
    return this.paths().map(pathToString);
  }

  /** Encodes the set as FieldsV1 JSON (`{"f:data":{".":{},"f:k":{}}}`), keys in canonical order. */
  toFieldsV1(): JsonObject {
    const out: JsonObject = {};
    this.encodeInto(out);
    return out;
  }

  private encodeInto(out: JsonObject): void {
    if (this.root) out['.'] = {};
    if (this.inFieldOrder()) {
      for (const [key, node] of this.nodes) out[key] = FieldSet.encodeNode(node);
    } else {
      for (const key of this.sortedKeys()) out[key] = FieldSet.encodeNode(this.nodes.get(key) as Node);
    }
  }

  private static encodeNode(node: Node): JsonObject {
    const o: JsonObject = {};
    if (!node.children.isEmpty()) {
      if (node.member) o['.'] = {};
      node.children.encodeInto(o);
    }
    return o;
  }

  /** True when the nodes are all fields and already in canonical order (as decoded sets are). */
  private inFieldOrder(): boolean {
    let previous: string | undefined;
    for (const key of this.nodes.keys()) {
      if (key.charCodeAt(0) !== 102 /* f */ || (previous !== undefined && previous >= key)) return false;
      previous = key;
    }
    return true;
  }

  /** Decodes FieldsV1 JSON; throws PathSyntaxError (naming the offending key) on bad shape. */
  static fromFieldsV1(value: unknown): FieldSet {
    return FieldSet.decodeFieldsV1(value).set;
  }

  /**
   * fromFieldsV1 that also tells whether the JSON is canonical: exactly what `toFieldsV1` of
   * the set gives (same keys, same order, each element spelled canonically), so that it can
   * stand in for the encoding.
   */
  static decodeFieldsV1(value: unknown): DecodedFieldsV1 {
    if (!isPlainObject(value)) throw new PathSyntaxError(`fieldsV1 must be a JSON object, got ${describe(value)}`);
    const set = new FieldSet();
    decodedCanonical = true;
    set.decode(value, [], true);
    return { set, canonical: decodedCanonical };
  }

  /**
   * Decodes one level into this (fresh) set. `at` is the key path, for errors; `top` tells the
   * whole value from a node's. Clears decodedCanonical when the level is not canonical.
   */
  private decode(value: Record<string, unknown>, at: string[], top: boolean): void {
    const keys = Object.keys(value);
    let previous: string | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const child = value[key];
      if (!isPlainObject(child)) {
        throw new PathSyntaxError(`fieldsV1 ${[...at, key].join(': ')} must map to a JSON object, got ${describe(child)}`);
      }
      if (key === '.') {
        this.root = true;
        // Canonically "." comes first, maps to {}, and in a node only along with children.
        if (i !== 0 || !isEmptyObject(child) || (!top && keys.length === 1)) decodedCanonical = false;
        continue;
      }
      let pe: PathElement;
      let encoded: string;
      if (key.startsWith('f:')) {
        // A field's encoding is its key: nothing to parse or normalise.
        pe = fieldElement(key.slice(2));
        encoded = key;
      } else {
        let known = decodedElements.get(key);
        if (!known) {
          try {
            pe = decodeElement(key);
          } catch (err) {
            throw new PathSyntaxError(`fieldsV1 ${[...at, key].join(': ')}: ${(err as Error).message}`);
          }
          known = { pe, encoded: encodeElement(pe) };
          if (decodedElements.size >= maxDecodedElements) decodedElements.clear();
          decodedElements.set(key, known);
        }
        pe = known.pe;
        encoded = known.encoded;
        if (encoded !== key) decodedCanonical = false;
      }
      if (decodedCanonical && previous !== undefined && compareKeys(previous, encoded) >= 0) decodedCanonical = false;
      previous = encoded;
      // `"f:x": {}` and `"f:x": {".": {}, ...}` both make the path itself a member.
      let member = true;
      let children = NO_CHILDREN;
      if (!isEmptyObject(child)) {
        const below = new FieldSet();
        at.push(key);
        below.decode(child, at, false);
        at.pop();
        member = below.root;
        below.root = false;
        if (below.nodes.size > 0) children = below;
      }
      const existing = this.nodes.get(encoded);
      if (existing) {
        // Two spellings of one element (key fields in another order): merge them.
        this.nodes.set(encoded, {
          element: existing.element,
          member: existing.member || member,
          children: FieldSet.unionOf(existing.children, children),
        });
      } else {
        this.nodes.set(encoded, { element: pe, member, children });
      }
    }
  }

  /** A set the caller may change: `set` itself, or a new empty set in place of NO_CHILDREN. */
  private static fresh(set: FieldSet): FieldSet {
    return set === NO_CHILDREN ? new FieldSet() : set;
  }

  /** The union as a new set, or NO_CHILDREN when it is empty. */
  private static unionOf(a: FieldSet, b: FieldSet): FieldSet {
    if (b.isEmpty()) return a.isEmpty() ? NO_CHILDREN : a.copy();
    if (a.isEmpty()) return b.copy();
    const out = new FieldSet();
    out.root = a.root || b.root;
    for (const [key, node] of a.nodes) {
      const o = b.nodes.get(key);
      out.nodes.set(
        key,
        o ? { element: node.element, member: node.member || o.member, children: FieldSet.unionOf(node.children, o.children) } : FieldSet.copyNode(node),
      );
    }
    for (const [key, node] of b.nodes) if (!a.nodes.has(key)) out.nodes.set(key, FieldSet.copyNode(node));
    return out;
  }

  /** The intersection as a new set, or NO_CHILDREN when it is empty. */
  private static intersectionOf(a: FieldSet, b: FieldSet): FieldSet {
    const root = a.root && b.root;
    let out: FieldSet | undefined;
    for (const [key, node] of a.nodes) {
      const o = b.nodes.get(key);
      if (!o) continue;
      const member = node.member && o.member;
      const children = FieldSet.intersectionOf(node.children, o.children);
      if (member || children !== NO_CHILDREN) (out ??= new FieldSet()).nodes.set(key, { element: node.element, member, children });
    }
    if (root) (out ??= new FieldSet()).root = true;
    return out ?? NO_CHILDREN;
  }

  /** The difference as a new set, or NO_CHILDREN when it is empty. */
  private static differenceOf(a: FieldSet, b: FieldSet): FieldSet {
    if (a.isEmpty()) return NO_CHILDREN;
    if (b.isEmpty()) return a.copy();
    const root = a.root && !b.root;
    let out: FieldSet | undefined;
    for (const [key, node] of a.nodes) {
      const o = b.nodes.get(key);
      if (!o) {
        (out ??= new FieldSet()).nodes.set(key, FieldSet.copyNode(node));
        continue;
      }
      const member = node.member && !o.member;
      const children = FieldSet.differenceOf(node.children, o.children);
      if (member || children !== NO_CHILDREN) (out ??= new FieldSet()).nodes.set(key, { element: node.element, member, children });
    }
    if (root) (out ??= new FieldSet()).root = true;
    return out ?? NO_CHILDREN;
  }

  /** A deep copy (NO_CHILDREN stays itself). */
  private copy(): FieldSet {
    if (this === NO_CHILDREN) return NO_CHILDREN;
    const out = new FieldSet();
    out.root = this.root;
    for (const [key, node] of this.nodes) out.nodes.set(key, FieldSet.copyNode(node));
    return out;
  }

  private static copyNode(node: Node): Node {
    return { element: node.element, member: node.member, children: node.children.copy() };
  }
}

/** A decoded FieldsV1 value, and whether it was spelled exactly as toFieldsV1 spells it. */
export interface DecodedFieldsV1 {
  set: FieldSet;
  canonical: boolean;
}

/**
 * Recently decoded list-item keys (`k:…`, `v:…`, `i:…`) with their elements and canonical
 * encodings: the same few (condition types, owner uids, finalizers) recur on every write.
 * Elements are values nobody changes, so sets may share them.
 */
const decodedElements = new Map<string, { pe: PathElement; encoded: string }>();
const maxDecodedElements = 4096;

/** Whether the FieldsV1 being decoded is canonical so far (decoding is synchronous). */
let decodedCanonical = true;

function isEmptyObject(value: Record<string, unknown>): boolean {
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) return false;
  return true;
}

/** The children of every node with none: shared, and never changed. */
const NO_CHILDREN = new FieldSet();

const rankOfPrefix: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/**
 * Orders encoded elements as compareElements orders the elements: by kind (fields, keyed
 * items, set values, indexes), indexes by number, the others by their encoding (for fields
 * the same as by name, the `f:` prefix being common).
 */
function compareKeys(a: string, b: string): number {
  const ra = rankOfPrefix[a[0]] ?? 4;
  const rb = rankOfPrefix[b[0]] ?? 4;
  if (ra !== rb) return ra - rb;
  if (ra === 3) return Number(a.slice(2)) - Number(b.slice(2));
  return compareStrings(a, b);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
