import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StartProgress } from './start-progress.js';

/** A StartProgress on a fake clock, with the lines it wrote. */
function fake() {
  let now = 1_000_000;
  const lines: string[] = [];
  const progress = new StartProgress({ write: (l) => lines.push(l), now: () => now, timer: false });
  return { progress, lines, advance: (ms: number) => (now += ms) };
}

describe('conductor server start progress (fake clock)', () => {
  test('a start done within a second says nothing', () => {
    const { progress, lines, advance } = fake();
    progress.step('the store (state.db)');
    advance(400);
    progress.tick();
    progress.step('the listener on 127.0.0.1:0');
    advance(500);
    progress.tick();
    progress.done();
    advance(5000);
    progress.tick();
    assert.deepEqual(lines, []);
  });

  test('a slow start says once a second what it waits for, until it is done', () => {
    const { progress, lines, advance } = fake();
    progress.step('etcd at http://127.0.0.1:2379');
    advance(1000);
    progress.tick();
    advance(1000);
    progress.tick();
    progress.step('the core controllers and the CRDs to be established');
    advance(1000);
    progress.tick();
    progress.done();
    advance(1000);
    progress.tick();
    assert.deepEqual(lines, [
      'conductor: starting (1s): waiting for etcd at http://127.0.0.1:2379…\n',
      'conductor: starting (2s): waiting for etcd at http://127.0.0.1:2379…\n',
      'conductor: starting (3s): waiting for the core controllers and the CRDs to be established…\n',
    ]);
  });
});
