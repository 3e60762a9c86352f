/**
 * compileSchema turns a structural schema into a CompiledSchema: an ajv validator for the
 * JSON-Schema part, the normalised node tree for pruning and defaulting, and the compiled
 * CEL rules. Everything is prepared once; per-object work is a validator call plus walks
 * over the parts of the object that have something to check.
 */
import type { ValidateFunction } from 'ajv';
import type { JSONSchemaProps } from '../registry/resource-type.js';
import type { StatusCause } from '../../machinery/errors.js';
import { buildNodeTree, type SchemaNode } from './node.js';
import { compileAjv, toAjvSchema } from './ajv-schema.js';
import { ajvErrorsToCauses } from './openapi-errors.js';
import { compileSchemaRules, type NodeRule } from './cel/index.js';
import { Walker } from './walk.js';
import { Pruner } from './prune.js';
import { applyDefaultsTo, pruneNonNullableNulls } from './defaults.js';
import { isBlocking } from './causes.js';

/** A CompiledSchema validates, prunes and defaults objects of one kind (at one version). */
export interface CompiledSchema {
  readonly group: string;
  readonly kind: string;
  /**
   * Full validation: types, formats, enums, bounds, required, list-type uniqueness,
   * int-or-string, nullable, embedded resources and x-kubernetes-validations rules (with
   * oldSelf for transition rules when `old` is given). Never throws.
   */
  validate(obj: unknown, old?: unknown): StatusCause[];
  /** Removes the fields the schema does not declare (mutates); returns their paths, e.g. `spec.foo`. */
  prune(obj: unknown): string[];
  /** The paths prune would remove, without changing obj (for fieldValidation=Strict|Warn). */
  unknownFields(obj: unknown): string[];
  /** Drops non-nullable nulls without defaults, then fills in declared defaults (mutates). */
  applyDefaults(obj: unknown): void;
}

export interface CompileOptions {
  group: string;
  kind: string;
}

const NOT_CHECKED = 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

function internalCause(err: unknown): StatusCause {
  const detail = err instanceof Error ? err.message : String(err);
  return { reason: 'FieldValueInvalid', message: `Invalid value: "object": the object could not be validated: ${detail}` };
}

/** A NodeValidator validates values against one node of a schema tree. */
export class NodeValidator {
  private readonly ajv: ValidateFunction;
  private readonly rules: ReadonlyMap<SchemaNode, readonly NodeRule[]>;

  constructor(readonly node: SchemaNode) {
    this.ajv = compileAjv(toAjvSchema(node.schema, { depth: 0, isRoot: node.isRoot }));
    this.rules = compileSchemaRules(node);
  }

  /** The compiled rules per node (for reporting compile errors). */
  get compiledRules(): ReadonlyMap<SchemaNode, readonly NodeRule[]> {
    return this.rules;
  }

  validate(obj: unknown, old: unknown, hasOld: boolean): StatusCause[] {
    try {
      const causes = !this.ajv(obj) && this.ajv.errors ? ajvErrorsToCauses(this.ajv.errors, obj, this.node) : [];
      return finishValidation(this.node, this.rules, causes, obj, old, hasOld);
    } catch (err) {
      return [internalCause(err)];
    }
  }
}

/**
 * Adds the checks ajv cannot do to the causes ajv found: list types and embedded resources,
 * then the CEL rules unless an earlier cause blocks them (as Kubernetes does).
 */
export function finishValidation(
  node: SchemaNode,
  rules: ReadonlyMap<SchemaNode, readonly NodeRule[]>,
  causes: StatusCause[],
  obj: unknown,
  old: unknown,
  hasOld: boolean,
): StatusCause[] {
  if (node.needsWalk) new Walker('structure', rules, causes).walk(node, obj, '', undefined, false);
  if (rules.size > 0) {
    if (causes.some(isBlocking)) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: "null": ${NOT_CHECKED}` });
    else new Walker('rules', rules, causes).walk(node, obj, '', old, hasOld);
  }
  return causes;
}

/** Compiles a root schema (the whole object: apiVersion, kind, metadata, spec, ...). Never throws. */
export function compileSchema(schema: JSONSchemaProps, opts: CompileOptions): CompiledSchema {
  const root = buildNodeTree(schema);
  const validator = new NodeValidator(root);
  const collect = (obj: unknown, mutate: boolean): string[] => {
    const pruner = new Pruner(mutate);
    try {
      pruner.prune(root, obj, '');
    } catch {
      // a pathological object (e.g. too deep): report what was found so far
    }
    return pruner.removed;
  };
  return {
    group: opts.group,
    kind: opts.kind,
    validate: (obj, old) => validator.validate(obj, old, old !== undefined),
    prune: (obj) => collect(obj, true),
    unknownFields: (obj) => collect(obj, false),
    applyDefaults: (obj) => {
      try {
        pruneNonNullableNulls(root, obj);
        applyDefaultsTo(root, obj);
      } catch {
        // defaulting is best effort on pathological input; validation reports the problems
      }
    },
  };
}
