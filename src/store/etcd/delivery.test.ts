/**
 * Delivery, the bookkeeping shared by the etcd watcher and the watch cache's watchers, with a
 * stand-in watcher (what it calls back is two fields and fail; the watchers themselves run on
 * real etcd in etcd-store.test.ts and the conformance suite).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StoreError, type StoreEvent, type StoreWatchHandlers } from '../types.js';
import { Delivery, type DeliveryOwner } from './delivery.js';

const put = (key: string, rev: number): StoreEvent => ({ type: 'put', kv: { key, value: '{}', createRevision: rev, modRevision: rev } });
const revs = (events: StoreEvent[]) => events.map((e) => e.kv.modRevision);

function standIn(onEvents: StoreWatchHandlers['onEvents'], maxPaused = 3) {
  const owner: DeliveryOwner & { errors: Error[] } = {
    prefix: '/p/',
    closed: false,
    errors: [],
    fail(err) {
      (owner as { closed: boolean }).closed = true;
      owner.errors.push(err);
    },
  };
  const delivery = new Delivery(owner, { onEvents, onError: () => undefined }, 10, () => maxPaused);
  return { owner, delivery };
}

test('delivery: only events after the last revision reach the handler, and the last revision follows what it took', () => {
  const seen: number[][] = [];
  const { delivery } = standIn((events) => void seen.push(revs(events)));
  assert.equal(delivery.hand([put('/p/a', 9), put('/p/b', 10), put('/p/c', 11)]), 'taken');
  assert.equal(delivery.hand([put('/p/c', 11)]), 'taken', 'offered twice: nothing to hand');
  assert.equal(delivery.hand([put('/p/d', 12), put('/p/e', 13)]), 'taken');
  assert.deepEqual(seen, [[11], [12, 13]]);
  assert.equal(delivery.lastRevision, 13);
});

test('delivery: a handler taking part pauses after it, the refused events count as missed, and past the limit the watcher fails too-far-behind', () => {
  const { owner, delivery } = standIn((events) => Math.min(1, events.length), 3);
  assert.equal(delivery.hand([put('/p/a', 11), put('/p/b', 12), put('/p/c', 13)]), 'paused');
  assert.equal(delivery.lastRevision, 11, 'after the one it took');
  // Two refused; one more is within the limit of 3, the next is not (one it took does not count).
  delivery.miss([put('/p/a', 11), put('/p/d', 14)]);
  assert.equal(owner.errors.length, 0);
  delivery.miss([put('/p/e', 15)]);
  assert.equal(owner.errors.length, 1);
  assert.ok(owner.errors[0] instanceof StoreError && owner.errors[0].code === 'too-far-behind');
  assert.match(owner.errors[0].message, /the watcher of "\/p\/" stopped taking events after revision 11 and missed more than 3 since/);
});

test('delivery: resumed forgets what was missed; a handler that throws fails the watcher, one that closes it ends the delivery', () => {
  const paused = standIn(() => 0, 1);
  assert.equal(paused.delivery.hand([put('/p/a', 11)]), 'paused');
  assert.equal(paused.delivery.lastRevision, 10, 'took nothing');
  paused.delivery.resumed();
  paused.delivery.miss([put('/p/b', 12)]);
  assert.equal(paused.owner.errors.length, 0, 'one missed since the resume: within the limit');

  const throwing = standIn(() => {
    throw new Error('boom');
  });
  assert.equal(throwing.delivery.hand([put('/p/a', 11)]), 'closed');
  assert.match(throwing.owner.errors[0].message, /watch handler for "\/p\/" failed: boom/);

  const closing = standIn(() => {
    (closing.owner as { closed: boolean }).closed = true;
    return 0;
  });
  assert.equal(closing.delivery.hand([put('/p/a', 11)]), 'closed', 'closed by its handler: not paused');
  assert.equal(closing.owner.errors.length, 0);
});
