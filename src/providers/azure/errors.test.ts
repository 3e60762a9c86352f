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
    { reason: 'throttled', err: rest(503, 'ServerBusy', 'The server is busy.'), want: { reason: 'Throttled', message: /throttling; retried with backoff/ } },
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
  test('an abort is passed on as it is', () => {
    const abort = Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' });
    assert.equal(azureError(abort, 'x'), abort);
  });
});
