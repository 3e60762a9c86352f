/**
 * A ResourceType describes one served resource (a built-in kind or a CRD's kind at one
 * version): its names, scope, schema, printer columns and the strategy hooks the generic
 * REST handlers call. Everything the API server serves is described by one of these.
 */
import type { KObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';

/** An OpenAPI v3 schema as Kubernetes uses it (structural, with x-kubernetes-* extensions). */
export type JSONSchemaProps = {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  title?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  multipleOf?: number;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  example?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
  /** Strategic-merge-patch metadata for built-in kinds (as in the Kubernetes OpenAPI). */
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  [extension: `x-${string}`]: unknown;
};

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** A column of `kubectl get` output (CRD additionalPrinterColumns shape). */
export interface PrinterColumn {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  format?: string;
  description?: string;
  priority?: number;
  /** A JSONPath into the object, e.g. `.status.phase`. Ignored when `cell` is given. */
  jsonPath?: string;
  /** Computes the cell for built-in kinds whose columns are not plain paths. */
  cell?: (obj: KObject) => unknown;
}

export interface ValidationContext {
  /** 'create' or 'update' (update includes patch and apply). */
  operation: 'create' | 'update';
  /** The object before the change (update only). */
  old?: KObject;
  /** The subresource being written ('' for the main resource, 'status', ...). */
  subresource: string;
}

/**
 * A Strategy holds the per-kind behaviour of the generic REST handlers. Every hook is
 * optional; the handlers implement the behaviour common to all kinds themselves
 * (metadata, generation, status subresource, finalizers, schema validation).
 */
export interface Strategy {
  /** Normalises a new object before validation (e.g. clear status, set defaults). */
  prepareForCreate?(obj: KObject): void;
  /** Normalises an updated object before validation (e.g. keep status on a spec update). */
  prepareForUpdate?(obj: KObject, old: KObject): void;
  /** Kind-specific validation beyond the schema; returns field causes (empty when valid). */
  validate?(obj: KObject, ctx: ValidationContext): StatusCause[];
  /** Fields usable in field selectors besides metadata.name and metadata.namespace. */
  selectableFields?(obj: KObject): Record<string, string>;
}

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** Plural, lower case: `configmaps`. */
  resource: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  /** Subresources served besides the main resource. */
  subresources: { status: boolean };
  /** The verbs served (for discovery). */
  verbs: string[];
  /** The object schema (whole object: apiVersion, kind, metadata, spec, ...). */
  schema: JSONSchemaProps;
  /** Columns for Table output after NAME (and before AGE when `ageColumn` is true). */
  printerColumns: PrinterColumn[];
  /**
   * True for kinds whose spec changes bump metadata.generation (CRDs with a status
   * subresource and most built-ins with a spec). Kinds without spec never bump it.
   */
  tracksGeneration: boolean;
  /** When set, objects are validated, pruned and defaulted against `schema` (CRDs). */
  structural: boolean;
  strategy: Strategy;
  /** Where the kind comes from: built into the server or served for a CRD. */
  source: { type: 'builtin' } | { type: 'crd'; crdName: string; storage: boolean };
}

export function groupVersion(rt: Pick<ResourceType, 'group' | 'version'>): string {
  return rt.group ? `${rt.group}/${rt.version}` : rt.version;
}
