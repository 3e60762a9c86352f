/**
 * A ResourceType describes one served resource (a built-in kind or a CRD's kind at one
 * version): its names, scope, schema, printer columns and the strategy hooks the generic
 * REST handlers call. Everything the API server serves is described by one of these.
 */
import type { KObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';

export type { JSONSchemaProps, PrinterColumn, ValidationRule } from '../../machinery/schema-types.js';
import type { JSONSchemaProps, PrinterColumn } from '../../machinery/schema-types.js';

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
  /** The verbs served (discovery lists them; any other verb is answered 405). */
  verbs: string[];
  /** The message of the 405 for a verb not in `verbs` (default: `<verb> is not supported on <resource>`). */
  refusedVerbMessage?: string;
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
