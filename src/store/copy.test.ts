import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyStore, CopyRefusedError, prefixOf } from './copy.js';
import { tempStore, type TempStore } from './sqlite/testing.js';

describe('prefixOf', () => {
  const cases: { reason: string; key: string; want: string }[] = [
    { reason: 'a namespaced object', key: '/registry/core/configmaps/default/a', want: '/registry/core/configmaps/' },
    { reason: 'a cluster-scoped object', key: '/registry/core/namespaces/default', want: '/registry/core/namespaces/' },
    { reason: 'a group', key: '/registry/core.conductor.io/claimquotas/ns/q', want: '/registry/core.conductor.io/claimquotas/' },
    { reason: 'a key outside /registry', key: '/other/thing/x', want: '/other/' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(prefixOf(c.key), c.want));
});

describe('copyStore (SQLite to SQLite)', () => {
  const temps: TempStore[] = [];
  const temp = () => {
    const t = tempStore();
    temps.push(t);
    return t.store;
  };
  afterEach(async () => {
    for (const t of temps.splice(0)) await t.cleanup();
  });

  test('copies every key byte for byte from one revision, in pages, and verifies the counts', async () => {
    const source = temp();
    const target = temp();
    for (let i = 0; i < 25; i++) await source.create(`/registry/core/configmaps/ns/cm-${String(i).padStart(2, '0')}`, () => `{"i":${i}}`);
    await source.create('/registry/core/secrets/ns/s', () => 'k8s:enc:aesgcm:v1:key1:opaque-bytes');
    const progress: number[] = [];
    const result = await copyStore(source, target, { pageSize: 10, concurrency: 4, onProgress: (p) => progress.push(p.copied) });
    assert.equal(result.copied, 26);
    assert.equal(result.verified, true);
    assert.deepEqual(progress, [10, 20, 26]);
    assert.deepEqual(result.counts, [
      { prefix: '/registry/core/configmaps/', source: 25, target: 25 },
      { prefix: '/registry/core/secrets/', source: 1, target: 1 },
    ]);
    assert.equal((await target.get('/registry/core/secrets/ns/s'))?.value, 'k8s:enc:aesgcm:v1:key1:opaque-bytes');
    assert.equal((await target.get('/registry/core/configmaps/ns/cm-07'))?.value, '{"i":7}');
  });

  test('a target that holds keys is refused, and replaced with replace', async () => {
    const source = temp();
    const target = temp();
    await source.create('/registry/core/configmaps/ns/a', () => 'a');
    await target.create('/registry/core/configmaps/ns/old', () => 'old');
    await assert.rejects(copyStore(source, target), (err: unknown) => err instanceof CopyRefusedError && err.keys === 1);
    assert.equal(await target.get('/registry/core/configmaps/ns/a'), undefined, 'nothing copied when refused');
    const result = await copyStore(source, target, { replace: true });
    assert.equal(result.verified, true);
    assert.equal(await target.get('/registry/core/configmaps/ns/old'), undefined);
    assert.equal((await target.get('/registry/core/configmaps/ns/a'))?.value, 'a');
  });
});
