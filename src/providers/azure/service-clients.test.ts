/**
 * The storage account's SDK clients make one attempt per call (the reconciler retries with its
 * own backoff or the cloud's Retry-After): against a local server answering 503 to everything
 * (mocked: it stands in for a storage endpoint that is down), one call is one request — the
 * SDKs' default policy would try 4 times. (The ARM clients and the token exchange are built
 * with `maxRetries: 0` in arm-clients.ts.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startUnavailableHttp, type UnavailableServer } from '../../../test/support/unavailable-servers.js';
import { blobServiceOf, queueServiceOf } from './service-clients.js';
import type { StorageAccount } from './credentials.js';

describe('azure storage clients: one attempt per call (mocked: a local server answers 503)', () => {
  let down: UnavailableServer;
  let account: StorageAccount;
  before(async () => {
    down = await startUnavailableHttp();
    account = {
      accountName: 'conductortest',
      accountKey: Buffer.from('not a real key, 32 bytes long!!!').toString('base64'),
      blobEndpoint: `${down.url}/conductortest`,
      queueEndpoint: `${down.url}/conductortest`,
    };
  });
  after(async () => down?.stop());

  for (const [what, call] of [
    ['blob service Get Properties', () => blobServiceOf(account).service.getProperties()],
    ['queue service Get Properties', () => queueServiceOf(account).service.getProperties()],
  ] as const) {
    test(`${what}: one request`, async () => {
      const before = down.requests();
      await assert.rejects(call(), (err: { statusCode?: number }) => err.statusCode === 503);
      assert.equal(down.requests() - before, 1);
    });
  }
});
