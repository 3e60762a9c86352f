/**
 * A FieldSet is a set of field paths stored as a tree: each node is one path element and says
 * whether the path ending there is a member. It encodes to and decodes from the `FieldsV1`
 * wire format of `metadata.managedFields[].fieldsV1`.
 */
import type { JsonObject } from '../object.js';
import { isPlainObject } from '../object.js';
import type { FieldPath, PathElement } from './field-path.js';
import { compareElements, decodeElement, encodeElement, pathToString, PathSyntaxError } from './field-path.js';

interface Node {
  element: PathElement;
  member: boolean;
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
    if (path.length === 0) {
      this.root = true;
      return this;
    }
    let set: FieldSet = this;
    for (let i = 0; i < path.length; i++) {
      const pe = path[i] as PathElement;
      const key = encodeElement(pe);
      let node = set.nodes.get(key);
      if (!node) {
        node = { element: pe, member: false, children: new FieldSet() };
        set.nodes.set(key, node);
      }
      if (i === path.length - 1) node.member = true;
      set = node.children;
    }
    return this;
  }

  /** True when the path is a member. */
  has(path: FieldPath): boolean {
    if (path.length === 0) return this.root;
    let set: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && set; i++) set = set.nodes.get(encodeElement(path[i] as PathElement))?.children;
    return set?.nodes.get(encodeElement(path[path.length - 1] as PathElement))?.member ?? false;
  }

  /** True when the element, taken from this set's level, is a member. */
  hasElement(pe: PathElement): boolean {
    return this.nodes.get(encodeElement(pe))?.member ?? false;
  }

  /** The members below the element, relative to it (empty when there are none). */
  childrenOf(pe: PathElement): FieldSet {
    return this.nodes.get(encodeElement(pe))?.children ?? new FieldSet();
  }

  /** The members below a path, relative to it. */
  withPrefix(path: FieldPath): FieldSet {
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
    const out = new FieldSet();
    out.root = this.root || other.root;
    for (const [key, node] of this.nodes) {
      const o = other.nodes.get(key);
      out.nodes.set(key, o
        ? { element: node.element, member: node.member || o.member, children: node.children.union(o.children) }
        : copyNode(node));
    }
    for (const [key, node] of other.nodes) if (!this.nodes.has(key)) out.nodes.set(key, copyNode(node));
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.root = this.root && other.root;
    for (const [key, node] of this.nodes) {
      const o = other.nodes.get(key);
      if (!o) continue;
      const member = node.member && o.member;
      const children = node.children.intersection(o.children);
      if (member || !children.isEmpty()) out.nodes.set(key, { element: node.element, member, children });
    }
    return out;
  }

  /** The paths of this set that are not members of `other` (path by path; descendants are not implied). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.root = this.root && !other.root;
    for (const [key, node] of this.nodes) {
      const o = other.nodes.get(key);
      if (!o) {
        out.nodes.set(key, copyNode(node));
        continue;
      }
      const member = node.member && !o.member;
      const children = node.children.difference(o.children);
      if (member || !children.isEmpty()) out.nodes.set(key, { element: node.element, member, children });
    }
    return out;
  }

  equals(other: FieldSet): boolean {
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

  private sortedNodes(): Node[] {
    return [...this.nodes.values()].sort((a, b) => compareElements(a.element, b.element));
  }

  private collect(prefix: FieldPath, out: FieldPath[]): void {
    const nodes = this.sortedNodes();
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
    if (this.root) out['.'] = {};
    for (const node of this.sortedNodes()) {
      out[encodeElement(node.element)] = node.children.isEmpty()
        ? {}
        : node.member
          ? { '.': {}, ...node.children.toFieldsV1() }
          : node.children.toFieldsV1();
    }
    return out;
  }

  /** Decodes FieldsV1 JSON; throws PathSyntaxError (naming the offending key) on bad shape. */
  static fromFieldsV1(value: unknown): FieldSet {
    if (!isPlainObject(value)) throw new PathSyntaxError(`fieldsV1 must be a JSON object, got ${describe(value)}`);
    const set = new FieldSet();
    set.decode(value, '');
    return set;
  }

  private decode(value: Record<string, unknown>, at: string): void {
    for (const [key, child] of Object.entries(value)) {
      const where = at ? `${at}: ${key}` : key;
      if (!isPlainObject(child)) throw new PathSyntaxError(`fieldsV1 ${where} must map to a JSON object, got ${describe(child)}`);
      if (key === '.') {
        this.root = true;
        continue;
      }
      let pe: PathElement;
      try {
        pe = decodeElement(key);
      } catch (err) {
        throw new PathSyntaxError(`fieldsV1 ${where}: ${(err as Error).message}`);
      }
      const children = new FieldSet();
      children.decode(child, where);
      // `"f:x": {}` and `"f:x": {".": {}, ...}` both make the path itself a member.
      const member = Object.keys(child).length === 0 || children.root;
      children.root = false;
      const encoded = encodeElement(pe);
      const existing = this.nodes.get(encoded);
      if (existing) {
        // Two spellings of one element (key fields in another order): merge them.
        this.nodes.set(encoded, {
          element: existing.element,
          member: existing.member || member,
          children: existing.children.union(children),
        });
      } else {
        this.nodes.set(encoded, { element: pe, member, children });
      }
    }
  }
}

const EMPTY = new FieldSet();

function copyNode(node: Node): Node {
  return { element: node.element, member: node.member, children: node.children.union(EMPTY) };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
