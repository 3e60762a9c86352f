/**
 * A PathFilter names the field paths server-side apply never tracks: type and identity
 * metadata that the server owns, plus whatever the caller adds (for example `status` when a
 * write goes to the main resource).
 */
import type { FieldPath } from './field-path.js';
import { fieldElement } from './field-path.js';
import { FieldSet } from './field-set.js';

/** The path prefixes no manager ever owns. */
export const defaultIgnoredPaths: readonly string[][] = [
  ['apiVersion'],
  ['kind'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'uid'],
  ['metadata', 'resourceVersion'],
  ['metadata', 'generation'],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'managedFields'],
  ['metadata', 'deletionTimestamp'],
  ['metadata', 'selfLink'],
];

/** A PathFilter answers, field by field, whether a subtree is ignored. */
export class PathFilter {
  private readonly children = new Map<string, PathFilter>();
  private ignored = false;

  /** A filter ignoring the default paths plus `extra` prefixes (each a list of field names). */
  static of(extra: readonly (readonly string[])[] = []): PathFilter {
    const root = new PathFilter();
    for (const prefix of [...defaultIgnoredPaths, ...extra]) {
      if (prefix.length === 0) continue;
      let node: PathFilter = root;
      for (const name of prefix) {
        let next = node.children.get(name);
        if (!next) {
          next = new PathFilter();
          node.children.set(name, next);
        }
        node = next;
      }
      node.ignored = true;
    }
    return root;
  }

  /**
   * Steps into a field: `'skip'` when the field's whole subtree is ignored, the filter for the
   * subtree when part of it is, or undefined when nothing below is ignored.
   */
  enter(name: string): PathFilter | 'skip' | undefined {
    const child = this.children.get(name);
    if (!child) return undefined;
    return child.ignored ? 'skip' : child;
  }

  /** Removes ignored subtrees from a set, and the bare `metadata` node, which is never owned. */
  apply(set: FieldSet): FieldSet {
    const drop = FieldSet.of([fieldElement('metadata')]);
    const walk = (node: PathFilter, prefix: FieldPath): void => {
      for (const [name, child] of node.children) {
        const path = [...prefix, fieldElement(name)];
        if (!child.ignored) {
          walk(child, path);
          continue;
        }
        drop.insert(path);
        for (const p of set.withPrefix(path).paths()) drop.insert([...path, ...p]);
      }
    };
    walk(this, []);
    return set.difference(drop);
  }
}
