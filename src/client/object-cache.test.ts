import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { KObject } from '../machinery/object.js';
import { ObjectCache, keyOf, objectKey, splitKey } from './object-cache.js';

const obj = (namespace: string, name: string, labels: Record<string, string> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace ? { namespace } : {}), labels },
});

describe('keys', () => {
  const cases = [
    { reason: 'namespaced', ns: 'a', name: 'b', key: 'a/b' },
    { reason: 'cluster-scoped', ns: '', name: 'b', key: 'b' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.equal(objectKey(obj(c.ns, c.name)), c.key);
      assert.equal(keyOf(c.ns, c.name), c.key);
      assert.deepEqual(splitKey(c.key), { namespace: c.ns, name: c.name });
    });
  }
});

describe('ObjectCache', () => {
  test('get, list by namespace, delete', () => {
    const cache = new ObjectCache();
    cache.set(obj('a', 'x'));
    cache.set(obj('b', 'y'));
    assert.equal(cache.get('a', 'x')?.metadata.name, 'x');
    assert.equal(cache.get('b', 'x'), undefined);
    assert.deepEqual(
      cache.list('b').map((o) => o.metadata.name),
      ['y'],
    );
    assert.equal(cache.list().length, 2);
    assert.equal(cache.delete('a/x')?.metadata.name, 'x');
    assert.equal(cache.size, 1);
    assert.deepEqual(cache.list('a'), []);
  });

  test('indexes follow updates: an object moves between index values', () => {
    const cache = new ObjectCache();
    cache.addIndexer('app', (o) => (o.metadata.labels?.app ? [o.metadata.labels.app] : []));
    cache.set(obj('a', 'x', { app: 'db' }));
    assert.deepEqual(
      cache.byIndex('app', 'db').map((o) => o.metadata.name),
      ['x'],
    );
    cache.set(obj('a', 'x', { app: 'web' }));
    assert.deepEqual(cache.byIndex('app', 'db'), []);
    assert.deepEqual(
      cache.byIndex('app', 'web').map((o) => o.metadata.name),
      ['x'],
    );
  });

  test('countByIndex counts what an index files under a value, following updates and deletes', () => {
    const cache = new ObjectCache();
    cache.addIndexer('app', (o) => (o.metadata.labels?.app ? [o.metadata.labels.app] : []));
    cache.set(obj('a', 'x', { app: 'db' }));
    cache.set(obj('a', 'y', { app: 'db' }));
    cache.set(obj('b', 'z', { app: 'web' }));
    assert.equal(cache.countByIndex('app', 'db'), 2);
    assert.equal(cache.countByIndex('app', 'web'), 1);
    assert.equal(cache.countByIndex('app', 'none'), 0);
    cache.set(obj('a', 'y', { app: 'web' }));
    assert.equal(cache.countByIndex('app', 'db'), 1);
    assert.equal(cache.countByIndex('app', 'web'), 2);
    cache.delete('b/z');
    assert.equal(cache.countByIndex('app', 'web'), 1);
    assert.throws(() => cache.countByIndex('nope', 'x'), /unknown index "nope"/);
  });

  test('an indexer added later indexes what is cached', () => {
    const cache = new ObjectCache();
    cache.set(obj('a', 'x', { tier: 'gold' }));
    cache.addIndexer('tier', (o) => [o.metadata.labels?.tier ?? 'none']);
    assert.equal(cache.byIndex('tier', 'gold').length, 1);
    assert.throws(() => cache.addIndexer('tier', () => []), /an indexer with that name exists/);
    assert.throws(() => cache.byIndex('nope', 'x'), /unknown index "nope"/);
  });

  test('an index function that throws leaves the cache unchanged', () => {
    const cache = new ObjectCache();
    cache.addIndexer('picky', (o) => {
      if (o.metadata.name === 'bad') throw new Error('no');
      return ['ok'];
    });
    assert.throws(() => cache.set(obj('a', 'bad')));
    assert.equal(cache.size, 0);
  });

  test('with onIndexError, a throwing index function is reported and the object still cached', () => {
    const reported: string[] = [];
    const cache = new ObjectCache((index, o) => reported.push(`${index} ${o.metadata.name}`));
    cache.addIndexer('picky', (o) => {
      if (o.metadata.name === 'bad') throw new Error('no');
      return ['ok'];
    });
    cache.set(obj('a', 'bad'));
    cache.set(obj('a', 'good'));
    assert.equal(cache.size, 2);
    assert.deepEqual(
      cache.byIndex('picky', 'ok').map((o) => o.metadata.name),
      ['good'],
    );
    assert.deepEqual(reported, ['picky bad']);
  });

  test('indexes always agree with a scan of the objects (property)', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('set' as const),
        name: fc.constantFrom('a', 'b', 'c', 'd'),
        ns: fc.constantFrom('x', 'y'),
        labels: fc.subarray(['l1', 'l2', 'l3']),
      }),
      fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom('a', 'b', 'c', 'd'), ns: fc.constantFrom('x', 'y') }),
      fc.record({ kind: fc.constant('replace' as const), names: fc.subarray(['a', 'b', 'c']) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const cache = new ObjectCache();
        cache.addIndexer('label', (o) => Object.keys(o.metadata.labels ?? {}));
        for (const o of ops) {
          if (o.kind === 'set') cache.set(obj(o.ns, o.name, Object.fromEntries(o.labels.map((l) => [l, 'v']))));
          else if (o.kind === 'delete') cache.delete(`${o.ns}/${o.name}`);
          else cache.replace(o.names.map((n) => obj('x', n, { l1: 'v' })));
        }
        for (const label of ['l1', 'l2', 'l3']) {
          const scan = cache
            .list()
            .filter((o) => label in (o.metadata.labels ?? {}))
            .map(objectKey)
            .sort();
          const indexed = cache.byIndex('label', label).map(objectKey).sort();
          if (JSON.stringify(scan) !== JSON.stringify(indexed)) return false;
        }
        for (const ns of ['x', 'y']) {
          if (cache.list(ns).length !== cache.list().filter((o) => o.metadata.namespace === ns).length) return false;
        }
        return true;
      }),
    );
  });
});
