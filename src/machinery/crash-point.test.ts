import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCrashPoints } from './crash-point.js';

test('parseCrashPoints reads names and visit counts', () => {
  assert.deepEqual([...parseCrashPoints('')], []);
  assert.deepEqual(
    [...parseCrashPoints('a, b@3')],
    [
      ['a', 1],
      ['b', 3],
    ],
  );
});

test('parseCrashPoints refuses a count that is not a positive integer', () => {
  assert.throws(() => parseCrashPoints('a@0'), /a@0/);
  assert.throws(() => parseCrashPoints('a@x'), /a@x/);
});
