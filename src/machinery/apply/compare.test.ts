import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from '../object.js';
import { compareObjects } from './compare.js';
import { widget, widgetSchema } from './test-fixtures.js';

const obj = (v: unknown): JsonValue => v as JsonValue;

describe('compareObjects', () => {
  const cases: { reason: string; before: JsonValue | undefined; after: JsonValue; want: { added: string[]; modified: string[]; removed: string[] } }[] = [
    {
      reason: 'a create adds every field, with the maps it creates',
      before: undefined,
      after: obj(widget({ replicas: 1 }, { labels: { a: 'b' } })),
      want: { added: ['.spec', '.metadata.labels', '.metadata.labels.a', '.spec.replicas'], modified: [], removed: [] },
    },
    {
      reason: 'changing a leaf modifies it',
      before: obj(widget({ replicas: 1, image: 'a' })),
      after: obj(widget({ replicas: 2, image: 'a' })),
      want: { added: [], modified: ['.spec.replicas'], removed: [] },
    },
    {
      reason: 'dropping a map removes it and everything below',
      before: obj(widget({ config: { a: { b: 1 } } })),
      after: obj(widget({})),
      want: { added: [], modified: [], removed: ['.spec.config', '.spec.config.a', '.spec.config.a.b'] },
    },
    {
      reason: 'map-list items compare by key, not position',
      before: obj(
        widget({
          containers: [
            { name: 'a', image: '1' },
            { name: 'b', image: '2' },
          ],
        }),
      ),
      after: obj(
        widget({
          containers: [
            { name: 'b', image: '3' },
            { name: 'c', image: '4' },
          ],
        }),
      ),
      want: {
        added: ['.spec.containers[name="c"]', '.spec.containers[name="c"].image', '.spec.containers[name="c"].name'],
        modified: ['.spec.containers[name="b"].image'],
        removed: ['.spec.containers[name="a"]', '.spec.containers[name="a"].image', '.spec.containers[name="a"].name'],
      },
    },
    {
      reason: 'set items compare by value; order does not matter',
      before: obj(widget({ tags: ['a', 'b'] })),
      after: obj(widget({ tags: ['c', 'b'] })),
      want: { added: ['.spec.tags[="c"]'], modified: [], removed: ['.spec.tags[="a"]'] },
    },
    {
      reason: 'an atomic list is one value',
      before: obj(widget({ args: ['a'] })),
      after: obj(widget({ args: ['a', 'b'] })),
      want: { added: [], modified: ['.spec.args'], removed: [] },
    },
    {
      reason: 'identity metadata and managedFields are not compared',
      before: obj(widget({}, { resourceVersion: '1', managedFields: [] })),
      after: obj(widget({}, { resourceVersion: '2' })),
      want: { added: [], modified: [], removed: [] },
    },
    {
      reason: 'an empty map appearing is an addition',
      before: obj(widget({})),
      after: obj(widget({ config: {} })),
      want: { added: ['.spec.config'], modified: [], removed: [] },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = compareObjects(c.before, c.after, widgetSchema);
      assert.deepEqual({ added: got.added.toStrings(), modified: got.modified.toStrings(), removed: got.removed.toStrings() }, c.want);
    });
  }
});
