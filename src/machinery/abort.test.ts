import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { abortReason } from './abort.js';

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
