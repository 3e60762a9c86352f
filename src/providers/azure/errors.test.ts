import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AzureError, azureError } from './errors.js';

const rest = (statusCode: number | undefined, code: string | undefined, message: string) =>
  Object.assign(new Error(message), { name: 'RestError', statusCode, code });

describe('azureError', () => {
  const cases: { reason: string; err: unknown; want: { reason: string; message: RegExp } }[] = [
    {
      reason: 'connection refused',
      err: rest(undefined, 'ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'),
      want: { reason: 'Unreachable', message: /^cannot x: no answer \(connect ECONNREFUSED/ },
    },
    {
      reason: "Azure's wrong key",
      err: rest(403, 'AuthenticationFailed', 'Server failed to authenticate the request.\nRequestId:1\nTime:2'),
      want: {
        reason: 'AuthenticationFailed',
        message: /^cannot x: Azure answered 403 AuthenticationFailed: Server failed to authenticate the request\. — check/,
      },
    },
    {
      reason: "Azurite's wrong key",
      err: rest(403, 'AuthorizationFailure', 'Server failed to authenticate the request. Make sure…'),
      want: { reason: 'AuthenticationFailed', message: /403 AuthorizationFailure/ },
    },
    {
      reason: 'a firewall',
      err: rest(403, 'AuthorizationFailure', 'This request is not authorized to perform this operation.'),
      want: { reason: 'Forbidden', message: /403 AuthorizationFailure: This request/ },
    },
    {
      reason: 'throttled',
      err: rest(503, 'ServerBusy', 'The server is busy.'),
      want: { reason: 'Throttled', message: /throttled by Azure; retried with backoff/ },
    },
    {
      reason: 'throttled with Retry-After',
      err: Object.assign(rest(503, 'ServerBusy', 'The server is busy.'), { response: { headers: new Headers({ 'retry-after': '30' }) } }),
      want: { reason: 'Throttled', message: /throttled by Azure; retrying in 30s$/ },
    },
    { reason: 'anything else', err: rest(400, 'InvalidHeaderValue', 'bad'), want: { reason: 'RequestFailed', message: /400 InvalidHeaderValue: bad/ } },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = azureError(c.err, 'x');
      assert.ok(got instanceof AzureError);
      assert.equal(got.reason, c.want.reason);
      assert.match(got.message, c.want.message);
      assert.ok(!got.message.includes('RequestId'), "only the first line of Azure's message");
    });
  }
  test('a Retry-After is kept as retryAfterSeconds, at most 5 minutes; none without one', () => {
    const throttled = (after?: string) =>
      azureError(Object.assign(rest(429, 'TooManyRequests', 'slow down'), after ? { response: { headers: new Headers({ 'retry-after': after }) } } : {}), 'x');
    assert.equal((throttled('30') as AzureError).retryAfterSeconds, 30);
    assert.equal((throttled('86400') as AzureError).retryAfterSeconds, 300);
    assert.match(throttled('86400').message, /retrying in 5m$/);
    assert.equal((throttled() as AzureError).retryAfterSeconds, undefined);
  });
  test('an abort is passed on as it is', () => {
    const abort = Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' });
    assert.equal(azureError(abort, 'x'), abort);
  });
});
