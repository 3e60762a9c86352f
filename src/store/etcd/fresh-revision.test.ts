/**
 * FreshRevision: how callers share etcd revision reads, with a stand-in for the read (the
 * read itself runs on real etcd in etcd-store.test.ts: gets sharing one read, a write
 * acknowledged before a get seen by it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FreshRevision } from './fresh-revision.js';

/** A stand-in for etcd's revision read (no etcd needed: only the sharing is tested): each call is held until answered. */
function standInReads() {
  const calls: { sentAfter: number; answer: (revision: number) => void }[] = [];
  let asked = 0;
  return {
    calls,
    /** Counts a caller asking, so that a call can tell how many had asked before it was sent. */
    ask<T>(p: T): T {
      asked++;
      return p;
    },
    readRevision: () =>
      new Promise<number>((resolve) => {
        calls.push({ sentAfter: asked, answer: resolve });
      }),
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('FreshRevision with a stand-in read: callers of one turn and of the turn after share one read, sent after they all asked', async () => {
  const reads = standInReads();
  const fresh = new FreshRevision(reads.readRevision);
  const first = Array.from({ length: 5 }, () => reads.ask(fresh.read()));
  await turn(); // the turn after the first callers'
  const second = Array.from({ length: 3 }, () => reads.ask(fresh.read()));
  await turn();
  await turn();
  assert.equal(reads.calls.length, 1, 'one read for both turns');
  assert.equal(reads.calls[0].sentAfter, 8, 'sent after all eight asked');
  reads.calls[0].answer(42);
  assert.deepEqual(await Promise.all([...first, ...second]), Array(8).fill(42));
  assert.equal(fresh.reads, 1);
});

test('FreshRevision with a stand-in read: a caller never joins a read on its way; it gets the next, sent once that one is back', async () => {
  const reads = standInReads();
  const fresh = new FreshRevision(reads.readRevision);
  const early = reads.ask(fresh.read());
  await turn();
  await turn();
  assert.equal(reads.calls.length, 1);
  const late = [reads.ask(fresh.read()), reads.ask(fresh.read())];
  await turn();
  await turn();
  await turn();
  assert.equal(reads.calls.length, 1, 'one read on its way at a time');
  reads.calls[0].answer(7);
  assert.equal(await early, 7);
  await turn();
  await turn();
  await turn();
  assert.equal(reads.calls.length, 2, 'the next read is sent once the first is back');
  assert.equal(reads.calls[1].sentAfter, 3);
  reads.calls[1].answer(9);
  assert.deepEqual(await Promise.all(late), [9, 9], 'the late callers get the read sent after them');
});

test('FreshRevision with a stand-in read: a failed read fails its callers only; the next callers get a new read', async () => {
  let n = 0;
  const fresh = new FreshRevision(() => (++n === 1 ? Promise.reject(new Error('etcd is gone')) : Promise.resolve(n * 10)));
  await assert.rejects(Promise.all([fresh.read(), fresh.read()]), /etcd is gone/);
  assert.equal(await fresh.read(), 20);
  assert.equal(fresh.reads, 2);
});

test('FreshRevision refuses limits below one', () => {
  assert.throws(() => new FreshRevision(() => Promise.resolve(1), 0), /maxInFlight 0: expected an integer of at least 1/);
  assert.throws(() => new FreshRevision(() => Promise.resolve(1), 1, 0), /gatherTurns 0: expected an integer of at least 1/);
});
