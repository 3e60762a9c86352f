/**
 * CacheWatcher's hand-over to an etcd watch of its own, with a mocked host (the real cache
 * loses its etcd watch only when etcd is gone for seconds; etcd-store.test.ts covers the
 * watcher on a real cache and etcd).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreEvent, StoreWatchHandlers, StoreWatcher } from '../types.js';
import { recorder, waitFor } from '../testing/conformance.js';
import { CacheWatcher, type CacheWatchHost } from './cache-watcher.js';

const put = (key: string, rev: number): StoreEvent => ({ type: 'put', kv: { key, value: '{}', createRevision: rev, modRevision: rev } });

function mockedHost(history: StoreEvent[]) {
  const opened: { prefix: string; after: number; handlers: StoreWatchHandlers; closed: boolean }[] = [];
  const registered = new Set<CacheWatcher>();
  let ready = true;
  const host: CacheWatchHost = {
    replay: (prefix, revision) => (ready ? history.filter((e) => e.kv.modRevision > revision && e.kv.key.startsWith(prefix)) : undefined),
    register: (w) => registered.add(w),
    unregister: (w) => registered.delete(w),
    openEtcdWatch: (prefix, after, handlers) => {
      const entry = { prefix, after, handlers, closed: false };
      opened.push(entry);
      const w: StoreWatcher = { close: () => (entry.closed = true), resume: () => undefined };
      return w;
    },
    maxPausedEvents: () => 2,
    forget: () => undefined,
  };
  return { host, opened, registered, lose: () => (ready = false) };
}

test('mocked cache: a watcher the cache can no longer serve goes on as an etcd watch from the last revision it delivered', async () => {
  const m = mockedHost([put('/a', 5), put('/b', 6)]);
  const rec = recorder();
  const w = new CacheWatcher(m.host, '/', 4, rec);
  w.start();
  assert.equal(rec.events.length, 0, 'nothing before watch() returned');
  await waitFor(() => rec.events.length === 2, 'the history');
  assert.ok(m.registered.has(w));
  w.offer([put('/c', 7)]);
  w.offer([put('/c', 7)]); // offered again: not delivered twice
  assert.deepEqual(
    rec.events.map((e) => e.kv.modRevision),
    [5, 6, 7],
  );
  m.lose();
  w.leaveCache();
  assert.equal(m.registered.has(w), false);
  assert.deepEqual(
    m.opened.map((o) => [o.prefix, o.after]),
    [['/', 7]],
  );
  // The etcd watch's events and errors reach the handlers; closing closes it.
  m.opened[0].handlers.onEvents([put('/d', 8)]);
  assert.equal(rec.events[3].kv.key, '/d');
  w.close();
  assert.equal(m.opened[0].closed, true);
});

test('mocked cache: a paused watcher holds nothing, ends with too-far-behind past the limit, and a resume after the cache lost goes to etcd', async () => {
  const m = mockedHost([]);
  const take = 0;
  const rec = recorder();
  const w = new CacheWatcher(m.host, '/', 0, {
    onEvents: (events) => {
      rec.onEvents(events.slice(0, take));
      return take;
    },
    onError: (err) => rec.onError(err),
  });
  w.start();
  await waitFor(() => m.registered.has(w), 'the watcher to be live');
  w.offer([put('/a', 1)]);
  assert.equal(w.paused, true);
  m.lose();
  w.leaveCache();
  w.resume();
  await waitFor(() => m.opened.length === 1, 'an etcd watch');
  assert.equal(m.opened[0].after, 0, 'from before the event it refused');

  const n = mockedHost([]);
  const slow = recorder();
  const v = new CacheWatcher(n.host, '/', 0, { onEvents: () => 0, onError: (err) => slow.onError(err) });
  v.start();
  await waitFor(() => n.registered.has(v), 'the watcher to be live');
  v.offer([put('/a', 1)]);
  v.offer([put('/b', 2)]);
  assert.equal(slow.errors.length, 0);
  v.offer([put('/c', 3)]);
  assert.equal(slow.errors.length, 1);
  assert.match(slow.errors[0].message, /missed more than 2/);
  assert.equal(n.registered.has(v), false, 'released');
});
