/**
 * CEL type declarations derived from a structural schema, used to type-check rules when a
 * schema is compiled (so `self.nosuchfield` is rejected like Kubernetes rejects it). Object
 * nodes with properties become message types, maps `map<string, T>`, lists `list<T>`;
 * int-or-string, nullable and schemaless parts are `dyn`. Rules are evaluated in a separate
 * dynamic environment (see rules.ts); these declarations only serve checking.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { SchemaNode } from '../node.js';
import { escapePropertyName } from './escape.js';
import { newLibraryEnvironment } from './library.js';

/** The types of one schema, registered in one environment that rule environments clone. */
export interface SchemaTypes {
  readonly env: Environment;
  /** The CEL type of a node's value. */
  typeOf(node: SchemaNode): string;
}

/**
 * Declares the CEL types of the given nodes' values and of everything under them — what the
 * rules on those nodes can reach (`self` and `oldSelf` are the node's value; a rule sees
 * nothing above it). Each node comes with its depth under the schema's root. Never throws
 * (falls back to dyn).
 */
export function declareSchemaTypes(nodes: Iterable<readonly [SchemaNode, number]>): SchemaTypes {
  const env = newLibraryEnvironment();
  const types = new Map<SchemaNode, string>();
  let counter = 0;

  const register = (fields: Record<string, string>): string => {
    const name = `Object${counter++}`;
    try {
      // A constructor keeps cel-js from generating runtime converters; these types are never evaluated.
      env.registerType(name, { ctor: class {}, fields });
      env.registerOperator(`${name} == ${name}`, () => false);
      return name;
    } catch {
      return 'dyn';
    }
  };

  const visit = (node: SchemaNode, depth: number): string => {
    const known = types.get(node);
    if (known) return known;
    const t = depth > 100 ? 'dyn' : compute(node, depth);
    types.set(node, t);
    return t;
  };

  const compute = (node: SchemaNode, depth: number): string => {
    // children first: cel-js needs a field's message type registered before its parent
    const props = node.properties ? [...node.properties].map(([k, child]) => [k, visit(child, depth + 1)] as const) : [];
    const additional = node.additional ? visit(node.additional, depth + 1) : undefined;
    const item = node.items ? visit(node.items, depth + 1) : undefined;
    if (node.nullable || node.intOrString) return 'dyn';
    switch (node.type) {
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'string':
        if (node.format === 'date-time' || node.format === 'datetime') return 'google.protobuf.Timestamp';
        if (node.format === 'duration') return 'google.protobuf.Duration';
        if (node.format === 'byte') return 'bytes';
        return 'string';
      case 'array':
        return `list<${item ?? 'dyn'}>`;
      case 'object': {
        if (node.resourceRoot || props.length > 0) {
          const fields: Record<string, string> = {};
          for (const [k, t] of props) {
            const escaped = escapePropertyName(k);
            if (escaped) fields[escaped] = t;
          }
          if (node.resourceRoot) {
            fields.apiVersion = 'string';
            fields.kind = 'string';
            fields.metadata = node.isRoot ? rootMetadataType() : 'dyn';
          }
          return register(fields);
        }
        if (additional) return `map<string, ${additional}>`;
        if (node.preserveUnknown || node.additionalAny) return 'dyn';
        return 'map<string, dyn>';
      }
      default:
        return 'dyn';
    }
  };

  let rootMeta: string | undefined;
  const rootMetadataType = (): string => (rootMeta ??= register({ name: 'string', generateName: 'string' }));

  for (const [node, depth] of nodes) visit(node, depth);
  return { env, typeOf: (node) => types.get(node) ?? 'dyn' };
}
