/**
 * The core/v1 ConfigMap kind: non-confidential configuration as key/value pairs, text in
 * `data` and base64-encoded bytes in `binaryData`. The two maps share one key space and
 * one 1 MiB budget; an `immutable` ConfigMap keeps both for life.
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import type { ResourceType, Strategy, ValidationContext } from '../registry/resource-type.js';
import { invalid, key, tooLong } from './field-errors.js';
import { decodedLength, maxDataSize, stringEntries, validateImmutableData, validateKeys } from './config-data.js';
import { resourceSchema } from './object-meta-schema.js';
import { bool, byteMap, stringMap } from './schema-builders.js';
import { verbsFor } from './verbs.js';

function configMapSchema() {
  return resourceSchema('A ConfigMap holds non-confidential configuration as key/value pairs for workloads and controllers to read.', {
    data: stringMap(
      'Text configuration entries. Keys consist of alphanumeric characters, "-", "_" or "."; values must be valid UTF-8 (use binaryData otherwise). A key may not appear in both data and binaryData.',
      'One text value.',
    ),
    binaryData: byteMap(
      'Binary configuration entries, base64-encoded in JSON and YAML. Keys follow the same rules as data and may not repeat a key of data.',
      'One value, base64-encoded.',
    ),
    immutable: bool('When true, data and binaryData can no longer be changed and immutable cannot be unset; only metadata may change.'),
  });
}

/** Causes for a ConfigMap's own fields (metadata is checked by the caller). */
export function validateConfigMap(o: KObject, ctx: ValidationContext): StatusCause[] {
  const causes: StatusCause[] = [];
  causes.push(...validateKeys(o.data, 'data'));
  const binary = isPlainObject(o.binaryData) ? o.binaryData : {};
  let total = 0;
  for (const [k, v] of stringEntries(o.data)) {
    if (Object.prototype.hasOwnProperty.call(binary, k)) causes.push(invalid(key('data', k), k, 'duplicate of key present in binaryData'));
    total += Buffer.byteLength(v, 'utf8');
  }
  causes.push(...validateKeys(o.binaryData, 'binaryData'));
  for (const [, v] of stringEntries(o.binaryData)) total += decodedLength(v);
  // The size error concerns the whole object, so it names no field.
  if (total > maxDataSize) causes.push(tooLong('', maxDataSize));
  if (ctx.operation === 'update' && ctx.old) causes.push(...validateImmutableData(o, ctx.old, ['data', 'binaryData']));
  return causes;
}

/** A configMapStrategy holds ConfigMap checks. */
export const configMapStrategy: Strategy = {
  validate: validateConfigMap,
  selectableFields: () => ({}),
};

function countKeys(v: unknown): number {
  return isPlainObject(v) ? Object.keys(v).length : 0;
}

/** The ResourceType of core/v1 ConfigMap. */
export function configMapResourceType(): ResourceType {
  return {
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    listKind: 'ConfigMapList',
    resource: 'configmaps',
    singular: 'configmap',
    shortNames: ['cm'],
    categories: [],
    namespaced: true,
    subresources: { status: false },
    verbs: verbsFor('ConfigMap'),
    schema: configMapSchema(),
    printerColumns: [
      {
        name: 'Data',
        type: 'integer',
        description: 'The number of entries in data and binaryData together.',
        cell: (o) => countKeys(o.data) + countKeys(o.binaryData),
      },
    ],
    tracksGeneration: false,
    structural: false,
    strategy: configMapStrategy,
    source: { type: 'builtin' },
  };
}
