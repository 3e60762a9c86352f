/**
 * Turns a CustomResourceDefinition into the ResourceTypes it serves (one per served
 * version) and checks that its names do not collide with what is already served.
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { JSONSchemaProps, PrinterColumn, ResourceType } from '../registry/resource-type.js';
import { evalJsonPath } from '../rest/table.js';

export interface CrdNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: object; scale?: object };
  additionalPrinterColumns?: { name: string; type: PrinterColumn['type']; format?: string; description?: string; priority?: number; jsonPath: string }[];
  selectableFields?: { jsonPath: string }[];
}

export interface CrdSpec {
  group: string;
  names: CrdNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
}

export function crdSpec(crd: KObject): CrdSpec {
  return crd.spec as CrdSpec;
}

/** The ObjectMeta part shown in OpenAPI for custom resources. */
export type MetaSchemaProvider = () => JSONSchemaProps;

export function resourceTypesForCrd(crd: KObject, objectMetaSchema: JSONSchemaProps): ResourceType[] {
  const spec = crdSpec(crd);
  const names = spec.names;
  const out: ResourceType[] = [];
  for (const v of spec.versions) {
    if (!v.served) continue;
    const userSchema: JSONSchemaProps = v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    const schema: JSONSchemaProps = {
      ...userSchema,
      type: 'object',
      properties: {
        apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
        kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
        ...(userSchema.properties ?? {}),
        metadata: objectMetaSchema,
      },
    };
    const selectable = (v.selectableFields ?? []).map((f) => f.jsonPath);
    out.push({
      group: spec.group,
      version: v.name,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      resource: names.plural,
      singular: names.singular ?? names.kind.toLowerCase(),
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      namespaced: spec.scope !== 'Cluster',
      subresources: { status: isPlainObject(v.subresources?.status) },
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      schema,
      printerColumns: (v.additionalPrinterColumns ?? []).map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format,
        description: c.description,
        priority: c.priority,
        jsonPath: c.jsonPath,
      })),
      tracksGeneration: true,
      structural: true,
      strategy: {
        selectableFields:
          selectable.length === 0
            ? undefined
            : (obj) => {
                const fields: Record<string, string> = {};
                for (const path of selectable) {
                  const val = obj.metadata.name === '' && obj.metadata.namespace === '' ? '' : evalJsonPath(path, obj);
                  fields[path.replace(/^\./, '')] = val === undefined || val === null ? '' : String(val);
                }
                return fields;
              },
      },
      source: { type: 'crd', crdName: crd.metadata.name!, storage: v.storage },
    });
  }
  return out;
}

/**
 * Names another served resource already uses (plural, kind, short names, singular), which
 * makes the CRD's names not accepted. `others` are the types served by other sources.
 */
export function nameConflicts(spec: CrdSpec, others: ResourceType[]): string[] {
  const conflicts: string[] = [];
  for (const rt of others) {
    if (rt.group !== spec.group) continue;
    if (rt.resource === spec.names.plural) conflicts.push(`"${spec.names.plural}" is already in use`);
    if (rt.kind === spec.names.kind) conflicts.push(`"${spec.names.kind}" is already in use`);
    for (const s of spec.names.shortNames ?? []) if (rt.shortNames.includes(s)) conflicts.push(`short name "${s}" is already in use`);
  }
  return [...new Set(conflicts)];
}
