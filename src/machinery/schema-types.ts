/**
 * The schema types shared by the API server, the patch and apply machinery and the kind
 * definitions: an OpenAPI v3 schema as Kubernetes uses it, its CEL validation rules, and a
 * printer column (`kubectl get`), and the pattern of a non-negative quantity (the kinds declare
 * it; the OpenAPI documents recognize quantities by it). They live here so that nothing below
 * the API server has to import it.
 */
import type { KObject } from './object.js';

/**
 * A Kubernetes quantity (`25Gi`, `500m`, `1.5`, `1e3`, or a JSON integer), never negative:
 * the grammar of machinery/quantity without its leading minus sign.
 */
export const NON_NEGATIVE_QUANTITY_PATTERN = '^\\+?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[numkMGTPE]|[KMGTPE]i|[eE][+-]?[0-9]+)?$';

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
