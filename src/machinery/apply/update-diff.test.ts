import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../schema-types.js';
import type { JsonObject, JsonValue } from '../object.js';
import { compareValues } from './compare.js';
import { PathFilter } from './path-filter.js';
import { chooser, ignoreLists, mix, trackedObject, trackedSchema } from './test-arbitraries.js';
import { widget, widgetSchema } from './test-fixtures.js';
import { rootSchema } from './type-info.js';
import { diffForUpdate } from './update-diff.js';

/** What the general path gives: compare everything, then filter (what trackUpdate used to do). */
function general(before: JsonValue | undefined, after: JsonValue, schema: JSONSchemaProps | undefined, ignore?: string[][]) {
  const filter = PathFilter.of(ignore);
  const c = compareValues(before ?? {}, after, rootSchema(schema), filter);
  return { taken: filter.apply(c.added.union(c.modified)), removed: filter.apply(c.removed) };
}

function fast(before: JsonValue | undefined, after: JsonValue, schema: JSONSchemaProps | undefined, ignore?: string[][]) {
  return diffForUpdate(before ?? {}, after, rootSchema(schema), PathFilter.of(ignore));
}

/** Both sets as path strings and as FieldsV1 text (which fixes the encoding's key order). */
function shown(d: ReturnType<typeof fast>) {
  return {
    taken: d.taken.toStrings(),
    removed: d.removed.toStrings(),
    takenV1: JSON.stringify(d.taken.toFieldsV1()),
    removedV1: JSON.stringify(d.removed.toFieldsV1()),
  };
}

const obj = (v: unknown): JsonObject => v as JsonObject;

describe('diffForUpdate', () => {
  const cases: { reason: string; before?: JsonObject; after: JsonObject; ignore?: string[][]; taken: string[]; removed: string[] }[] = [
    {
      reason: 'a create takes every field it sets, maps included, but not the bare metadata node or identity fields',
      after: obj(widget({ replicas: 1, ports: [{ port: 80 }] }, { uid: 'u', labels: { a: 'b' } })),
      taken: [
        '.spec',
        '.metadata.labels',
        '.metadata.labels.a',
        '.spec.ports',
        '.spec.replicas',
        '.spec.ports[port=80,protocol="TCP"]',
        '.spec.ports[port=80,protocol="TCP"].port',
      ],
      removed: [],
    },
    {
      reason: 'a status write (everything but status ignored) sees only status changes',
      before: obj({ ...widget({ replicas: 1 }), status: { phase: 'Pending' } }),
      after: obj({ ...widget({ replicas: 2 }, { labels: { x: 'y' } }), status: { phase: 'Ready' } }),
      ignore: [['spec'], ['metadata']],
      taken: ['.status.phase'],
      removed: [],
    },
    {
      reason: 'a main-resource write with status ignored never walks status',
      before: obj({ ...widget({ replicas: 1, image: 'a' }), status: { phase: 'Pending' } }),
      after: obj({ ...widget({ replicas: 2 }), status: { phase: 'Ready', extra: 1 } }),
      ignore: [['status']],
      taken: ['.spec.replicas'],
      removed: ['.spec.image'],
    },
    {
      reason: 'managedFields are never compared',
      before: obj(widget({}, { managedFields: [{ manager: 'a' }] })),
      after: obj(widget({}, { managedFields: [{ manager: 'b' }] })),
      taken: [],
      removed: [],
    },
    {
      reason: 'map-list items are taken and removed by key, with their fields',
      before: obj(
        widget({
          containers: [
            { name: 'a', image: '1' },
            { name: 'b', image: '2' },
          ],
        }),
      ),
      after: obj(widget({ containers: [{ name: 'b', image: '3' }, { name: 'c' }] })),
      taken: ['.spec.containers[name="c"]', '.spec.containers[name="b"].image', '.spec.containers[name="c"].name'],
      removed: ['.spec.containers[name="a"]', '.spec.containers[name="a"].image', '.spec.containers[name="a"].name'],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = fast(c.before, c.after, widgetSchema, c.ignore);
      assert.deepEqual({ taken: got.taken.toStrings(), removed: got.removed.toStrings() }, { taken: c.taken, removed: c.removed });
      assert.deepEqual(shown(got), shown(general(c.before, c.after, widgetSchema, c.ignore)));
    });
  }

  test('gives what comparing everything and filtering gives, on random versions (property)', () => {
    fc.assert(
      fc.property(
        trackedObject,
        trackedObject,
        chooser,
        ignoreLists,
        fc.constantFrom<JSONSchemaProps | undefined>(trackedSchema, undefined),
        fc.boolean(),
        (a, b, choose, ignore, schema, create) => {
          const before = create ? undefined : a;
          const after = mix(a, b, choose);
          assert.deepEqual(shown(fast(before, after, schema, ignore)), shown(general(before, after, schema, ignore)));
        },
      ),
      { numRuns: 400 },
    );
  });
});
