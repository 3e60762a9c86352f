import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, isConflict, isNotFound } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { builtinRefs, resourceRef } from '../types.js';
import type { WatchEvent } from '../types.js';
import { FakeClient, mergePatch, selectorMatcher } from './fake-client.js';

const widgets = resourceRef('example.conductor.io/v1alpha1', 'Widget', 'widgets', true);
const widget = (name: string, extra: Partial<KObject> = {}): KObject => ({
  apiVersion: 'example.conductor.io/v1alpha1',
  kind: 'Widget',
  metadata: { name, namespace: 'ns' },
  spec: { size: 1 },
  ...extra,
});

describe('FakeClient writes', () => {
  test('create assigns identity and resourceVersion; a second create conflicts', async () => {
    const fake = new FakeClient();
    const created = await fake.create(widgets, widget('a'));
    assert.equal(created.metadata.resourceVersion, '1');
    assert.equal(created.metadata.generation, 1);
    assert.ok(created.metadata.uid);
    await assert.rejects(fake.create(widgets, widget('a')), (err: unknown) => err instanceof ApiError && err.reason === 'AlreadyExists');
  });

  test('update is compare-and-swap on resourceVersion and bumps generation on spec changes only', async () => {
    const fake = new FakeClient();
    const v1 = await fake.create(widgets, widget('a'));
    const v2 = await fake.update(widgets, { ...v1, spec: { size: 2 } });
    assert.equal(v2.metadata.generation, 2);
    await assert.rejects(fake.update(widgets, { ...v1, spec: { size: 3 } }), (err: unknown) => isConflict(err));
    const v3 = await fake.update(widgets, { ...v2, metadata: { ...v2.metadata, labels: { a: 'b' } } });
    assert.equal(v3.metadata.generation, 2);
  });

  test('status changes only through the status subresource', async () => {
    const fake = new FakeClient();
    const v1 = await fake.create(widgets, widget('a', { status: { phase: 'Ignored' } }));
    assert.equal(v1.status, undefined);
    const v2 = await fake.updateStatus(widgets, { ...v1, status: { phase: 'Ready' } });
    const v3 = await fake.update(widgets, { ...v2, status: { phase: 'Overwritten' } });
    assert.deepEqual(v3.status, { phase: 'Ready' });
    const v4 = await fake.patch(widgets, 'a', 'merge', { status: { phase: 'Bound' } }, { namespace: 'ns', subresource: 'status' });
    assert.deepEqual(v4.status, { phase: 'Bound' });
  });

  test('patches: merge, JSON, and a stale resourceVersion in a patch conflicts', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a', { spec: { size: 1, color: 'red' } }));
    const merged = await fake.patch(widgets, 'a', 'merge', { spec: { color: null, shape: 'round' } }, { namespace: 'ns' });
    assert.deepEqual(merged.spec, { size: 1, shape: 'round' });
    const jsoned = await fake.patch(widgets, 'a', 'json', [{ op: 'replace', path: '/spec/size', value: 5 }], { namespace: 'ns' });
    assert.deepEqual(jsoned.spec, { size: 5, shape: 'round' });
    await assert.rejects(fake.patch(widgets, 'a', 'merge', { metadata: { resourceVersion: '1' } }, { namespace: 'ns' }), (err: unknown) => isConflict(err));
    const applied = await fake.patch(widgets, 'new', 'apply', widget('new'), { namespace: 'ns', fieldManager: 'm' });
    assert.equal(applied.metadata.name, 'new', 'apply creates a missing object');
  });

  test('finalizers delay deletion until removed', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a', { metadata: { name: 'a', namespace: 'ns', finalizers: ['x'] } }));
    const marked = await fake.delete(widgets, 'a', { namespace: 'ns' });
    assert.ok(marked.metadata.deletionTimestamp);
    const current = await fake.get(widgets, 'a', 'ns');
    await fake.update(widgets, { ...current, metadata: { ...current.metadata, finalizers: [] } });
    await assert.rejects(fake.get(widgets, 'a', 'ns'), (err: unknown) => isNotFound(err));
  });

  test('a namespace waits for its spec.finalizers and the finalize subresource clears them', async () => {
    const fake = new FakeClient();
    fake.seed(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' }, spec: { finalizers: ['kubernetes'] } });
    await fake.delete(builtinRefs.namespaces, 'team');
    const ns = await fake.get(builtinRefs.namespaces, 'team');
    assert.ok(ns.metadata.deletionTimestamp);
    await fake.updateSubresource(builtinRefs.namespaces, { ...ns, spec: { finalizers: [] } }, 'finalize');
    await assert.rejects(fake.get(builtinRefs.namespaces, 'team'), (err: unknown) => isNotFound(err));
  });

  test('delete preconditions', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    await assert.rejects(fake.delete(widgets, 'a', { namespace: 'ns', preconditions: { uid: 'other' } }), (err: unknown) => isConflict(err));
  });
});

describe('FakeClient reads', () => {
  test('lists page by page with continue tokens', async () => {
    const fake = new FakeClient();
    for (const n of ['a', 'b', 'c', 'd', 'e']) await fake.create(widgets, widget(n));
    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await fake.list(widgets, { namespace: 'ns', limit: 2, continue: cont });
      names.push(...page.items.map((i) => i.metadata.name as string));
      cont = page.metadata.continue;
      pages++;
    } while (cont);
    assert.deepEqual(names, ['a', 'b', 'c', 'd', 'e']);
    assert.equal(pages, 3);
  });

  const selectorCases: Array<{ reason: string; labels?: string; fields?: string; want: boolean }> = [
    { reason: 'equality', labels: 'app=db', want: true },
    { reason: 'double equals', labels: 'app==db', want: true },
    { reason: 'inequality', labels: 'app!=db', want: false },
    { reason: 'exists', labels: 'tier', want: true },
    { reason: 'does not exist', labels: '!tier', want: false },
    { reason: 'in', labels: 'tier in (gold, silver)', want: true },
    { reason: 'notin', labels: 'tier notin (gold)', want: false },
    { reason: 'several terms all hold', labels: 'app=db,tier in (gold)', want: true },
    { reason: 'field selector on name', fields: 'metadata.name=a', want: true },
    { reason: 'field selector mismatch', fields: 'metadata.namespace!=ns', want: false },
  ];
  for (const c of selectorCases) {
    test(`selector: ${c.reason}`, () => {
      const matches = selectorMatcher(c.labels, c.fields);
      assert.equal(matches(widget('a', { metadata: { name: 'a', namespace: 'ns', labels: { app: 'db', tier: 'gold' } } })), c.want);
    });
  }

  test('mergePatch follows RFC 7386', () => {
    assert.deepEqual(mergePatch({ a: 'b', c: { d: 'e', f: 'g' } }, { a: 'z', c: { f: null } }), { a: 'z', c: { d: 'e' } });
    assert.deepEqual(mergePatch({ a: [1, 2] }, { a: [3] }), { a: [3] });
  });
});

describe('FakeClient watch', () => {
  function record(fake: FakeClient, rv?: string): { events: WatchEvent[]; closes: Array<Error | undefined>; stop: () => void } {
    const events: WatchEvent[] = [];
    const closes: Array<Error | undefined> = [];
    const h = fake.watch(
      widgets,
      { namespace: 'ns', resourceVersion: rv, allowWatchBookmarks: true },
      {
        onEvent: (e) => events.push(e),
        onClose: (err) => closes.push(err),
      },
    );
    return { events, closes, stop: () => h.stop() };
  }

  test('from no resourceVersion: current objects as ADDED, then live changes, asynchronously', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const w = record(fake);
    assert.equal(w.events.length, 0, 'nothing is delivered synchronously');
    const a = await fake.get(widgets, 'a', 'ns');
    await fake.update(widgets, { ...a, spec: { size: 9 } });
    await fake.delete(widgets, 'a', { namespace: 'ns' });
    fake.bookmark();
    await fake.settle();
    assert.deepEqual(
      w.events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'],
    );
    assert.equal(w.events[3].object.metadata.resourceVersion, String(fake.revision));
    w.stop();
    assert.equal(fake.watchCount(), 0);
  });

  test('from a resourceVersion: replays later history only', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const rv = String(fake.revision);
    await fake.create(widgets, widget('b'));
    const w = record(fake, rv);
    await fake.settle();
    assert.deepEqual(
      w.events.map((e) => `${e.type} ${e.object.metadata.name}`),
      ['ADDED b'],
    );
    w.stop();
  });

  test('from a compacted resourceVersion: ERROR 410 then the end', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    await fake.create(widgets, widget('b'));
    fake.compact();
    const w = record(fake, '1');
    await fake.settle();
    assert.equal(w.events.length, 1);
    assert.equal(w.events[0].type, 'ERROR');
    assert.equal((w.events[0].object as unknown as { code: number }).code, 410);
    assert.deepEqual(w.closes, [undefined]);
  });

  test('objects leaving a label selector are DELETED for that watch', async () => {
    const fake = new FakeClient();
    const events: string[] = [];
    fake.watch(widgets, { labelSelector: 'app=db' }, { onEvent: (e) => events.push(`${e.type} ${e.object.metadata.name}`), onClose: () => {} });
    const a = await fake.create(widgets, widget('a', { metadata: { name: 'a', namespace: 'ns', labels: { app: 'db' } } }));
    await fake.update(widgets, { ...a, metadata: { ...a.metadata, labels: { app: 'web' } } });
    await fake.settle();
    assert.deepEqual(events, ['ADDED a', 'DELETED a']);
    fake.closeWatches();
    await fake.settle();
    assert.equal(fake.watchCount(), 0);
  });

  test('records actions', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    await fake.get(widgets, 'a', 'ns');
    assert.deepEqual(fake.actions, [
      { verb: 'create', resource: 'widgets', namespace: 'ns', name: 'a' },
      { verb: 'get', resource: 'widgets', namespace: 'ns', name: 'a' },
    ]);
  });
});
