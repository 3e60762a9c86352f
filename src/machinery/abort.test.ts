import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { abortReason, pauseUnlessAborted } from './abort.js';

describe('abortReason', () => {
  test('is the Error given to abort()', () => {
    const c = new AbortController();
    const why = new RangeError('deadline passed');
    c.abort(why);
    assert.equal(abortReason(c.signal), why);
  });
  test('is an Error naming a reason that is not one', () => {
    const c = new AbortController();
    c.abort('shutting down');
    const err = abortReason(c.signal);
    assert.ok(err instanceof Error);
    assert.match(err.message, /shutting down/);
  });
  test('is the DOMException of abort() without a reason', () => {
    const c = new AbortController();
    c.abort();
    const err = abortReason(c.signal);
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'AbortError');
  });
});

describe('pauseUnlessAborted', () => {
  test('resolves when the signal aborts, without waiting the whole time or rejecting', async () => {
    const c = new AbortController();
    let resolved = false;
    const paused = pauseUnlessAborted(3_600_000, c.signal).then(() => (resolved = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(resolved, false, 'still waiting before the abort');
    c.abort(new Error('stop'));
    await paused;
    assert.equal(resolved, true);
  });
  test('resolves at once for a signal already aborted, and after the time otherwise', async () => {
    const aborted = AbortSignal.abort();
    await pauseUnlessAborted(3_600_000, aborted);
    const c = new AbortController();
    let resolved = false;
    await pauseUnlessAborted(5, c.signal).then(() => (resolved = true));
    assert.equal(resolved, true);
  });
});
