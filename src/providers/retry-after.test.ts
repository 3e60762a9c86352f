import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  boundedRetryAfter,
  headerOf,
  MAX_RETRY_AFTER_SECONDS,
  retryAfterHeaderSeconds,
  retryAfterSecondsOf,
  retryDelaySeconds,
  retryingIn,
} from './retry-after.js';

test('Retry-After header values: delta-seconds, an HTTP-date (past → 0), nothing usable', () => {
  const now = Date.parse('2026-11-28T10:00:00Z');
  const cases: [unknown, number | undefined][] = [
    ['30', 30],
    [' 7 ', 7],
    ['1.5', 1.5],
    [['12'], 12],
    [45, 45],
    ['Sat, 28 Nov 2026 10:01:00 GMT', 60],
    ['Sat, 28 Nov 2026 09:00:00 GMT', 0],
    ['-5', undefined],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
    [{}, undefined],
  ];
  for (const [value, want] of cases) assert.equal(retryAfterHeaderSeconds(value, now), want, JSON.stringify(value));
});

test('bounded: whole seconds, at least 1, at most 5 minutes', () => {
  assert.equal(MAX_RETRY_AFTER_SECONDS, 300);
  assert.equal(boundedRetryAfter(0), 1);
  assert.equal(boundedRetryAfter(1.2), 2);
  assert.equal(boundedRetryAfter(30), 30);
  assert.equal(boundedRetryAfter(3600), 300);
  assert.equal(boundedRetryAfter(Number.NaN), undefined);
  assert.equal(boundedRetryAfter(-1), undefined);
  assert.equal(boundedRetryAfter(undefined), undefined);
});

test('google.rpc.RetryInfo retryDelay: JSON "30s" or the decoded {seconds, nanos}', () => {
  assert.equal(retryDelaySeconds('30s'), 30);
  assert.equal(retryDelaySeconds('0.5s'), 0.5);
  assert.equal(retryDelaySeconds({ seconds: '30' }), 30);
  assert.equal(retryDelaySeconds({ seconds: 2, nanos: 500_000_000 }), 2.5);
  assert.equal(retryDelaySeconds({ nanos: 0 }), 0);
  assert.equal(retryDelaySeconds({}), undefined);
  assert.equal(retryDelaySeconds('30'), undefined);
  assert.equal(retryDelaySeconds(undefined), undefined);
});

test('headers: a plain object in any case, or a Headers-like get', () => {
  assert.equal(headerOf({ 'Retry-After': '3' }, 'retry-after'), '3');
  assert.equal(headerOf(new Headers({ 'retry-after': '4' }), 'retry-after'), '4');
  assert.equal(headerOf({ get: () => undefined, other: 'x' }, 'retry-after'), undefined);
  assert.equal(headerOf(undefined, 'retry-after'), undefined);
});

test('the wait an error carries, itself or through its causes, bounded; said as "retrying in …"', () => {
  assert.equal(retryAfterSecondsOf(Object.assign(new Error('x'), { retryAfterSeconds: 30 })), 30);
  assert.equal(retryAfterSecondsOf(new Error('outer', { cause: Object.assign(new Error('inner'), { retryAfterSeconds: 7200 }) })), 300);
  assert.equal(retryAfterSecondsOf(new Error('no hint')), undefined);
  assert.equal(retryAfterSecondsOf(Object.assign(new Error('x'), { retryAfterSeconds: undefined })), undefined);
  assert.equal(retryAfterSecondsOf('text'), undefined);
  assert.equal(retryingIn(30), 'retrying in 30s');
  assert.equal(retryingIn(120), 'retrying in 2m');
  assert.equal(retryingIn(90), 'retrying in 1m30s');
});
