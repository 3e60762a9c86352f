import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreEvent } from '../types.js';
import { EventHistory, eventBytes } from './event-history.js';

const put = (key: string, rev: number): StoreEvent => ({ type: 'put', kv: { key, value: '', createRevision: rev, modRevision: rev } });
const keys = (events: StoreEvent[] | undefined) => events?.map((e) => `${e.kv.key}@${e.kv.modRevision}`);

test('the history holds the last events by whole revisions, and says when a start is older than it holds', () => {
  const h = new EventHistory({ maxEvents: 3, maxBytes: 1 << 30 });
  h.reset(10);
  assert.deepEqual(keys(h.since(10, '/')), []);
  assert.equal(h.since(9, '/'), undefined, 'before the list revision');
  h.push(put('/a', 11));
  h.push(put('/b', 12));
  // Two keys written in one transaction: one revision.
  h.push(put('/c/1', 13));
  h.push(put('/c/2', 13));
  // The oldest event went (capacity 3): every event after 11 is still there.
  assert.equal(h.floor, 11);
  assert.equal(h.since(10, '/'), undefined);
  assert.deepEqual(keys(h.since(11, '/')), ['/b@12', '/c/1@13', '/c/2@13']);
  assert.deepEqual(keys(h.since(12, '/c/')), ['/c/1@13', '/c/2@13']);
  assert.deepEqual(keys(h.since(13, '/')), []);
  // Going past capacity again drops revision 12, then the whole of revision 13 (not half of it).
  h.push(put('/d', 14));
  assert.equal(h.floor, 12);
  h.push(put('/e', 15));
  assert.equal(h.floor, 13);
  assert.deepEqual(keys(h.since(13, '/')), ['/d@14', '/e@15']);
  for (let r = 16; r < 40; r++) h.push(put(`/f${r}`, r));
  assert.equal(h.floor, 36);
  assert.deepEqual(keys(h.since(36, '/')), ['/f37@37', '/f38@38', '/f39@39']);
  assert.throws(() => new EventHistory({ maxEvents: 0, maxBytes: 1 }), /watch history maxEvents of 0: expected a positive integer/);
  assert.throws(() => new EventHistory({ maxEvents: 1, maxBytes: 0.5 }), /watch history maxBytes of 0.5: expected a positive integer/);
});

test('the history is bounded by the bytes of its keys and values too: whole revisions go, and a revision let go is not taken back', () => {
  const sized = (key: string, rev: number, bytes: number, prevBytes = 0): StoreEvent => ({
    type: 'put',
    kv: { key, value: 'v'.repeat(bytes), createRevision: rev, modRevision: rev },
    ...(prevBytes > 0 ? { prev: { key, value: 'p'.repeat(prevBytes), createRevision: 1, modRevision: rev - 1 } } : {}),
  });
  const one = eventBytes(sized('/a', 1, 1_000));
  assert.equal(eventBytes(sized('/a', 1, 1_000, 500)), one + 500, 'a previous value counts');
  const h = new EventHistory({ maxEvents: 100, maxBytes: 3 * one });
  h.reset(0);
  for (let r = 1; r <= 3; r++) h.push(sized('/a', r, 1_000));
  assert.equal(h.size, 3);
  assert.equal(h.bytes, 3 * one);
  assert.equal(h.floor, 0);
  // One more byte than the budget: the oldest revision goes.
  h.push(sized('/b', 4, 1));
  assert.deepEqual(keys(h.since(1, '/')), ['/a@2', '/a@3', '/b@4']);
  assert.equal(h.floor, 1);
  assert.ok(h.bytes <= 3 * one);
  // An update carrying a large previous value pushes out two revisions.
  h.push(sized('/a', 5, 1_000, 1_000));
  assert.deepEqual(keys(h.since(3, '/')), ['/b@4', '/a@5']);
  assert.equal(h.floor, 3);
  // An event larger than the whole budget goes at once: nothing is held, and a start at its revision is complete.
  h.push(sized('/big', 6, 4 * one));
  assert.equal(h.size, 0);
  assert.equal(h.bytes, 0);
  assert.equal(h.floor, 6);
  assert.deepEqual(h.since(6, '/'), []);
  assert.equal(h.since(5, '/'), undefined);
  // Another key of that same revision (one transaction) is not taken back: the floor says it is let go.
  h.push(sized('/big2', 6, 1));
  assert.equal(h.size, 0);
  h.push(sized('/c', 7, 1));
  assert.deepEqual(keys(h.since(6, '/')), ['/c@7']);
});
