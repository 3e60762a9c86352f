/**
 * Compiles every x-kubernetes-validations rule of a schema tree once: type declarations for
 * the whole schema, then per node the check environments and the compiled rules, plus the
 * parsed `fieldPath` of each rule.
 */
import type { SchemaNode } from '../node.js';
import { childPath, indexPath, keyPath } from '../causes.js';
import { declareSchemaTypes } from './types.js';
import { checkEnvironments, compileRules, type CompiledRule } from './rules.js';

/** A NodeRule is a compiled rule with its fieldPath resolved against the node's schema. */
export interface NodeRule extends CompiledRule {
  /** Appends the rule's fieldPath to a node path; undefined when fieldPath is absent or invalid. */
  readonly relocate: ((base: string) => string) | undefined;
  /** True when fieldPath is set but does not name a field of the schema. */
  readonly fieldPathInvalid: boolean;
}

type Step = { kind: 'child' | 'key'; name: string } | { kind: 'index'; index: number };

/** Parses a rule fieldPath (`.spec.ports['http']`, `.items[0]`) against the node it is on. */
export function resolveFieldPath(node: SchemaNode, fieldPath: string): Step[] | undefined {
  const steps: Step[] = [];
  let cur: SchemaNode | undefined = node;
  let rest = fieldPath.trim();
  if (rest === '') return undefined;
  while (rest.length > 0) {
    let name: string | undefined;
    let index: number | undefined;
    let m: RegExpExecArray | null;
    if ((m = /^\.([^.[\]]+)/.exec(rest))) name = m[1];
    else if ((m = /^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(rest)) || (m = /^\[\s*"((?:[^"\\]|\\.)*)"\s*\]/.exec(rest))) name = m[1].replace(/\\(.)/g, '$1');
    else if ((m = /^\[\s*(\d+)\s*\]/.exec(rest))) index = Number(m[1]);
    else return undefined;
    rest = rest.slice(m[0].length);
    if (!cur) return undefined;
    if (index !== undefined) {
      if (cur.type !== 'array' || !cur.items) return undefined;
      steps.push({ kind: 'index', index });
      cur = cur.items;
    } else if (name !== undefined) {
      const prop: SchemaNode | undefined = cur.properties?.get(name);
      if (prop) {
        steps.push({ kind: 'child', name });
        cur = prop;
      } else if (cur.additional) {
        steps.push({ kind: 'key', name });
        cur = cur.additional;
      } else return undefined;
    }
  }
  return steps;
}

function relocator(steps: Step[]): (base: string) => string {
  return (base) => steps.reduce((p, s) => (s.kind === 'index' ? indexPath(p, s.index) : s.kind === 'child' ? childPath(p, s.name) : keyPath(p, s.name)), base);
}

/** The nodes of the tree that carry rules, each with its depth under root. */
function nodesWithRules(root: SchemaNode): [SchemaNode, number][] {
  const out: [SchemaNode, number][] = [];
  const visit = (n: SchemaNode, depth: number): void => {
    if (depth > 200) return;
    if (n.rules.length > 0) out.push([n, depth]);
    for (const c of n.properties?.values() ?? []) visit(c, depth + 1);
    if (n.additional) visit(n.additional, depth + 1);
    if (n.items) visit(n.items, depth + 1);
  };
  visit(root, 0);
  return out;
}

/** Compiles the rules of every node of the tree; nodes without rules are absent from the map. */
export function compileSchemaRules(root: SchemaNode): Map<SchemaNode, NodeRule[]> {
  const result = new Map<SchemaNode, NodeRule[]>();
  const nodes = nodesWithRules(root);
  if (nodes.length === 0) return result;
  const types = declareSchemaTypes(nodes);
  for (const [node] of nodes) {
    const envs = checkEnvironments(types.env, types.typeOf(node));
    const compiled = compileRules(node.rules, envs);
    result.set(
      node,
      compiled.map((cr) => {
        const fp = typeof cr.rule.fieldPath === 'string' ? cr.rule.fieldPath : '';
        const steps = fp.trim() ? resolveFieldPath(node, fp) : undefined;
        return { ...cr, relocate: steps ? relocator(steps) : undefined, fieldPathInvalid: fp.trim() !== '' && !steps };
      }),
    );
  }
  return result;
}
