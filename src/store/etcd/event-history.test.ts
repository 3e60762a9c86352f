import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreEvent } from '../types.js';
import { EventHistory } from './event-history.js';

const put = (key: string, rev: number): StoreEvent => ({ type: 'put', kv: { key, value: '', createRevision: rev, modRevision: rev } });
const keys = (events: StoreEvent[] | undefined) => events?.map((e) => `${e.kv.key}@${e.kv.modRevision}`);

test('the history holds the last events by whole revisions, and says when a start is older than it holds', () => {
  const h = new EventHistory(3);
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
  assert.throws(() => new EventHistory(0), /expected a positive integer/);
});
