/**
 * fast-check arbitraries for the property tests of update tracking: objects of a kind whose
 * schema has every list and map semantic (map-lists keyed by one and two fields, sets, atomic
 * lists and maps, free maps, a status with conditions), with now and then a value of the
 * wrong shape or a list whose keys repeat, and the next version of an object.
 */
import fc from 'fast-check';
import type { JSONSchemaProps } from '../schema-types.js';
import type { JsonObject, JsonValue } from '../object.js';
import { isPlainObject } from '../object.js';
import { widgetSchema } from './test-fixtures.js';

/** The widget schema plus a status with conditions (a map-list keyed by type) and a free map. */
export const trackedSchema: JSONSchemaProps = {
  ...widgetSchema,
  properties: {
    ...widgetSchema.properties,
    status: {
      type: 'object',
      properties: {
        phase: { type: 'string' },
        observedGeneration: { type: 'integer' },
        conditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: {
            type: 'object',
            properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' }, message: { type: 'string' } },
          },
        },
        bindings: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'object' } },
      },
    },
    data: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

const word = fc.constantFrom('a', 'b', 'c');
const scalar: fc.Arbitrary<JsonValue> = fc.oneof(word, fc.integer({ min: 0, max: 3 }), fc.boolean(), fc.constant(null));
/** A value of any shape, for fields that should hold something else. */
const junk: fc.Arbitrary<JsonValue> = fc.oneof(
  scalar,
  fc.constant<JsonValue>({}),
  fc.constant<JsonValue>([]),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
);
const shaped = (arb: fc.Arbitrary<JsonValue>): fc.Arbitrary<JsonValue> => fc.oneof({ weight: 8, arbitrary: arb }, { weight: 1, arbitrary: junk });
/** A list whose items usually have distinct keys (`key` gives an item's), sometimes not. */
const keyedList = <T extends JsonValue>(item: fc.Arbitrary<T>, key: (t: T) => string): fc.Arbitrary<JsonValue> =>
  fc.oneof({ weight: 4, arbitrary: fc.uniqueArray(item, { selector: key, maxLength: 3 }) }, { weight: 1, arbitrary: fc.array(item, { maxLength: 3 }) });

const condition = fc.record(
  {
    type: fc.constantFrom('Ready', 'Synced', 'Bound'),
    status: fc.constantFrom('True', 'False'),
    reason: word,
    message: fc.constantFrom('', 'm'),
  },
  { requiredKeys: ['type'] },
);
const port = fc.record({ port: fc.integer({ min: 80, max: 81 }), protocol: fc.constantFrom('TCP', 'UDP'), name: word }, { requiredKeys: ['port'] });
const container = fc.record({ name: word, image: word }, { requiredKeys: ['name'] });

const spec = fc.record(
  {
    replicas: fc.integer({ min: 0, max: 3 }),
    image: word,
    note: fc.oneof(word, fc.constant(null)),
    tags: fc.array(word, { maxLength: 3 }),
    args: fc.array(word, { maxLength: 3 }),
    ports: keyedList(port, (p) => `${p.port}/${p.protocol ?? 'TCP'}`),
    containers: keyedList(container, (c) => c.name),
    selector: fc.dictionary(word, word, { maxKeys: 2 }),
    config: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
  },
  { requiredKeys: [] },
);

const metadata = fc.record(
  {
    name: fc.constant('w'),
    namespace: fc.constant('default'),
    uid: fc.constant('u'),
    resourceVersion: fc.constantFrom('1', '2'),
    generation: fc.constantFrom(1, 2),
    labels: fc.dictionary(word, word, { maxKeys: 3 }),
    annotations: fc.dictionary(word, word, { maxKeys: 2 }),
    finalizers: fc.array(word, { maxLength: 2 }),
    ownerReferences: keyedList(fc.record({ uid: word, name: word, controller: fc.boolean() }, { requiredKeys: ['uid'] }), (o) => o.uid),
  },
  { requiredKeys: ['name'] },
);

const status = fc.record(
  {
    phase: word,
    observedGeneration: fc.integer({ min: 0, max: 2 }),
    conditions: keyedList(condition, (c) => c.type),
    bindings: fc.array(fc.record({ name: word }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

/** An object of the tracked kind (`Widget`), named `w`. */
export const trackedObject: fc.Arbitrary<JsonObject> = fc.record(
  {
    apiVersion: fc.constant('example.com/v1'),
    kind: fc.constant('Widget'),
    metadata,
    spec: shaped(spec),
    status: shaped(status),
    data: fc.dictionary(word, word, { maxKeys: 3 }),
    extra: junk,
  },
  { requiredKeys: ['apiVersion', 'kind', 'metadata'] },
);

/** How `mix` treats one value: keep the first version's, take the second's, mix the two, or drop it. */
export type Choose = (path: string) => number;

/** A function choosing, path by path, how to mix two versions. */
export const chooser: fc.Arbitrary<Choose> = fc.func(fc.nat({ max: 3 }));

/**
 * The next version of `a`, made from `a` and another object `b`: value by value it keeps a's,
 * takes b's, mixes the two (maps key by key, lists item by item) or drops the value.
 */
export function mix(a: JsonObject, b: JsonObject, choose: Choose): JsonObject {
  return mixValue(a, b, choose, '', true) as JsonObject;
}

function mixValue(a: JsonValue | undefined, b: JsonValue | undefined, choose: Choose, path: string, root = false): JsonValue | undefined {
  const c = root ? 2 : choose(path);
  if (c === 0) return a;
  if (c === 1) return b;
  if (c === 3) return undefined;
  if (isPlainObject(a) && isPlainObject(b)) {
    const out: JsonObject = {};
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const v = mixValue(a[k], b[k], choose, `${path}/${k}`);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const out: JsonValue[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const v = mixValue(a[i], b[i], choose, `${path}/${i}`);
      if (v !== undefined) out.push(v);
    }
    return out;
  }
  return a;
}

/** The `ignore` lists writes pass: none, status on the main resource, the rest on a status write, odd ones. */
export const ignoreLists: fc.Arbitrary<string[][] | undefined> = fc.constantFrom(
  undefined,
  [['status']],
  [['spec'], ['metadata'], ['data'], ['extra']],
  [
    ['spec', 'image'],
    ['metadata', 'labels'],
  ],
  [
    ['status', 'conditions'],
    ['spec', 'config', 'a'],
  ],
  [[]],
);
