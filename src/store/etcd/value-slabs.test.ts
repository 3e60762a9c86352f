import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CachedKeyValue, compactSlabs } from './cached-key-value.js';
import { OWN_BUFFER_ABOVE, SLAB_BYTES, ValueSlabs } from './value-slabs.js';

const text = (i: number) => `{"n":${i},"note":"naïve café – 東京 🚀","pad":"${'x'.repeat(1000 + (i % 37))}"}`;

test('values written side by side in slabs read back as written, across slab ends, large and empty ones alone', () => {
  const slabs = new ValueSlabs();
  const kvs = Array.from({ length: 1000 }, (_, i) => CachedKeyValue.of(`/k${i}`, text(i), i + 1, i + 1, slabs));
  kvs.forEach((kv, i) => assert.equal(kv.value, text(i), `value ${i}`));
  const bytes = kvs.reduce((n, kv) => n + kv.byteLength, 0);
  assert.equal(slabs.stats.live, bytes);
  assert.ok(slabs.stats.slabs >= Math.ceil(bytes / SLAB_BYTES) && slabs.stats.slabs <= Math.ceil(bytes / SLAB_BYTES) + 1, `slabs: ${slabs.stats.slabs}`);
  const large = 'y'.repeat(OWN_BUFFER_ABOVE + 1);
  assert.equal(CachedKeyValue.of('/large', large, 1, 1, slabs).value, large);
  assert.equal(CachedKeyValue.of('/empty', '', 1, 1, slabs).value, '');
  assert.equal(slabs.stats.live, bytes, 'a large or empty value is not in a slab');
});

test('a released value stays readable where an event holds it; compaction moves the values of mostly released slabs and lets those go', () => {
  const slabs = new ValueSlabs();
  const n = 12_000; // ~14 MB: past the 4 MiB a compaction waits for
  const held = new Map<string, CachedKeyValue>();
  for (let i = 0; i < n; i++) held.set(`/k${i}`, CachedKeyValue.of(`/k${i}`, text(i), i + 1, i + 1, slabs));
  const before = slabs.stats;
  assert.equal(compactSlabs(slabs, held.values()), 0, 'nothing released: no compaction');
  // An event keeps the old value of every key it replaces (at: the same bytes, not counted as held).
  const events: CachedKeyValue[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) continue; // two thirds of every slab replaced
    const key = `/k${i}`;
    const prev = held.get(key)!;
    events.push(prev.at(key, prev.createRevision, n + i));
    held.set(key, CachedKeyValue.of(key, text(i + n), i + 1, n + i, slabs));
    prev.release();
    prev.release(); // twice changes nothing
  }
  const moved = compactSlabs(slabs, held.values());
  assert.ok(moved >= n / 3 - 200, `the kept third moved out of the old slabs (${moved})`);
  const after = slabs.stats;
  const liveBytes = [...held.values()].reduce((s, kv) => s + kv.byteLength, 0);
  assert.equal(after.live, liveBytes, 'live bytes are the held values');
  assert.ok(after.used < before.used * 1.2, `slabs let go: ${after.used} bytes written in held slabs (before the updates: ${before.used})`);
  for (let i = 0; i < n; i++) assert.equal(held.get(`/k${i}`)!.value, i % 3 === 0 ? text(i) : text(i + n), `held value ${i}`);
  let e = 0;
  for (let i = 0; i < n; i++) if (i % 3 !== 0) assert.equal(events[e++].value, text(i), `old value ${i} as the event holds it`);
  assert.equal(compactSlabs(slabs, held.values()), 0, 'the next compaction waits for more releases');
});

test('values made without slabs have buffers of their own and nothing to release or move', () => {
  const kv = CachedKeyValue.of('/a', text(1), 1, 1);
  kv.release();
  assert.equal(kv.relocate(), false);
  assert.equal(kv.value, text(1));
});
