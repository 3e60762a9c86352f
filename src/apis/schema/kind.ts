/**
 * defineKind turns one kind's definition (names, top-level fields built with `s`, printer
 * columns, labels) into everything the rest of Conductor needs about it: the
 * CustomResourceDefinition object, the Client's ResourceRef, and — at the type level — the
 * TypeScript type of its objects (`ObjectOf<typeof def>`).
 */
import type { KObject, ObjectMeta } from '../../machinery/object.js';
import { deepCopy } from '../../machinery/object.js';
import type { JSONSchemaProps, PrinterColumn, ValidationRule } from '../../machinery/schema-types.js';
import { resourceRef, type ResourceRef } from '../../client/types.js';
import type { InferShape, Shape } from './builder.js';

/** A printer column of a CRD version (`additionalPrinterColumns`). */
export interface CrdPrinterColumn {
  name: string;
  type: PrinterColumn['type'];
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** What a kind is made of; `fields` are the top-level properties besides apiVersion, kind and metadata. */
export interface KindOptions<S extends Shape> {
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural resource name: `mysqlinstances`. */
  plural: string;
  /** Lower-case singular; defaults to the kind in lower case. */
  singular?: string;
  shortNames?: string[];
  categories?: string[];
  /** Defaults to Namespaced. */
  scope?: 'Namespaced' | 'Cluster';
  /** The kind's description, shown by `kubectl explain <kind>`. */
  description: string;
  fields: S;
  /** CEL rules on the whole object. */
  rules?: ValidationRule[];
  /** Serve a status subresource; defaults to true when `fields` has `status`. */
  statusSubresource?: boolean;
  /** Columns after NAME; an AGE column is appended. */
  printerColumns?: CrdPrinterColumn[];
  /** Labels and annotations put on the CRD object itself. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** An object of a kind whose top-level fields (besides apiVersion, kind and metadata) are `B`. */
export type KindObject<B> = KObject & { apiVersion: string; kind: string; metadata: ObjectMeta } & B;

/**
 * A KindDefinition is a defined kind: its names, schema, CRD and ResourceRef. The type
 * parameter is the type of its objects' top-level fields besides apiVersion, kind and
 * metadata; `ObjectOf<typeof def>` is the type of whole objects.
 */
export interface KindDefinition<B = Record<string, unknown>> {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly namespaced: boolean;
  /** `group/version`. */
  readonly apiVersion: string;
  /** The CRD's name: `<plural>.<group>`. */
  readonly crdName: string;
  /** The Client's handle on the kind. */
  readonly ref: ResourceRef;
  /** The whole-object schema (`openAPIV3Schema`). */
  readonly schema: JSONSchemaProps;
  readonly printerColumns: readonly CrdPrinterColumn[];
  /** A fresh copy of the CRD object (apiextensions.k8s.io/v1). */
  crd(): KObject;
  /** Fills in apiVersion and kind: `def.make({ metadata: {...}, spec: {...} })`. */
  make(obj: { metadata: ObjectMeta } & B): KindObject<B>;
  /** Never set; carries `B` for `ObjectOf`. */
  readonly __body?: B;
}

/** The TypeScript type of a defined kind's objects. */
export type ObjectOf<D> = D extends KindDefinition<infer B> ? KindObject<B> : never;

const AGE_COLUMN: CrdPrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** Defines a kind; see KindOptions. */
export function defineKind<S extends Shape>(opts: KindOptions<S>): KindDefinition<InferShape<S>> {
  const apiVersion = `${opts.group}/${opts.version}`;
  const scope = opts.scope ?? 'Namespaced';
  const singular = opts.singular ?? opts.kind.toLowerCase();
  const properties: Record<string, JSONSchemaProps> = {
    apiVersion: {
      type: 'string',
      description: 'APIVersion is the versioned schema of this object; the server rejects versions it does not serve.',
    },
    kind: { type: 'string', description: 'Kind is the REST type of this object, in CamelCase.' },
    metadata: { type: 'object' },
  };
  const required: string[] = [];
  for (const [name, f] of Object.entries(opts.fields)) {
    properties[name] = f.schema;
    if (!f.isOptional && f.schema.default === undefined) required.push(name);
  }
  const schema: JSONSchemaProps = {
    type: 'object',
    description: opts.description,
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(opts.rules && opts.rules.length > 0 ? { 'x-kubernetes-validations': opts.rules } : {}),
  };
  const printerColumns = [...(opts.printerColumns ?? []), AGE_COLUMN];
  const statusSubresource = opts.statusSubresource ?? 'status' in opts.fields;
  const crdName = `${opts.plural}.${opts.group}`;

  const crd: KObject = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: crdName,
      ...(opts.labels ? { labels: { ...opts.labels } } : {}),
      ...(opts.annotations ? { annotations: { ...opts.annotations } } : {}),
    },
    spec: {
      group: opts.group,
      names: {
        kind: opts.kind,
        listKind: `${opts.kind}List`,
        plural: opts.plural,
        singular,
        ...(opts.shortNames && opts.shortNames.length > 0 ? { shortNames: [...opts.shortNames] } : {}),
        ...(opts.categories && opts.categories.length > 0 ? { categories: [...opts.categories] } : {}),
      },
      scope,
      versions: [
        {
          name: opts.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          ...(statusSubresource ? { subresources: { status: {} } } : {}),
          additionalPrinterColumns: printerColumns.map((c) => ({ ...c })),
        },
      ],
    },
  };

  return {
    group: opts.group,
    version: opts.version,
    kind: opts.kind,
    plural: opts.plural,
    singular,
    shortNames: opts.shortNames ?? [],
    categories: opts.categories ?? [],
    namespaced: scope === 'Namespaced',
    apiVersion,
    crdName,
    ref: resourceRef(apiVersion, opts.kind, opts.plural, scope === 'Namespaced'),
    schema,
    printerColumns,
    crd: () => deepCopy(crd),
    make: (obj) => ({ apiVersion, kind: opts.kind, ...obj }),
  };
}
