import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../../../test/support/eventually.js';
import type { KObject } from '../../../machinery/object.js';
import type { CallOptions } from '../../spi.js';
import { fixture } from '../../testing.js';
import { connectionsTo } from '../process/testing.js';
import { describeCallsToHungServer } from '../process/testing/hung-server-calls.js';
import type { RedisServer } from './kinds.js';
import { redisServerConnector, type RedisServerClient } from './shared-server.js';
import { startThrowawayRedis, type ThrowawayRedis } from './testing.js';

const isAbort = (err: Error) => err.name === 'AbortError';

function server(host: string, port: number): RedisServer {
  return fixture<RedisServer>({
    apiVersion: 'cache.local.conductor.io/v1alpha1',
    kind: 'RedisServer',
    metadata: { namespace: 'sys', name: 'shared', uid: 'uid-shared' },
    spec: { host, port, adminCredentialsSecretRef: { name: 'admin' } },
  });
}

const claim: KObject = {
  apiVersion: 'cache.conductor.io/v1alpha1',
  kind: 'RedisCluster',
  metadata: { namespace: 'team', name: 'app', uid: 'uid-app' },
  spec: {},
};
const claimRef = { namespace: 'team', name: 'app', uid: 'uid-app' };

async function connectAs(resource: RedisServer, password: string): Promise<RedisServerClient> {
  return (await redisServerConnector.connect(resource, { credentials: { password } })) as RedisServerClient;
}

/** The calls of a RedisServer client that talk to the server, each with the call's options. */
const calls: { name: string; call: (c: RedisServerClient, r: RedisServer, o: CallOptions) => Promise<unknown> }[] = [
  { name: 'observe', call: (c, r, o) => c.observe(r, o) },
  { name: 'create', call: (c, r, o) => c.create(r, o) },
  { name: 'bindClaim', call: (c, r, o) => c.bindClaim(r, claim, undefined, o) },
  { name: 'unbindClaim (Delete)', call: (c, r, o) => c.unbindClaim(r, claimRef, 'Delete', undefined, o) },
];

describeCallsToHungServer('RedisServer', calls, async (port) => {
  const resource = server('127.0.0.1', port);
  return { client: await connectAs(resource, 'secret'), resource };
});

describe('RedisServer: a call to a real redis-server that stopped answering', { timeout: 120_000 }, () => {
  let redis: ThrowawayRedis;
  before(async () => {
    redis = await startThrowawayRedis();
  });
  after(async () => {
    if (redis) process.kill(redis.pid, 'SIGCONT');
    await redis?.stop();
  });

  test("is cancelled through the call's signal: it rejects with the abort reason and closes its connection", async () => {
    const resource = server(redis.host, redis.port);
    const client = await connectAs(resource, redis.password);
    await client.bindClaim(resource, claim); // the server answers
    process.kill(redis.pid, 'SIGSTOP'); // now it accepts connections (in the kernel) but never answers
    try {
      const call = new AbortController();
      const binding = client.bindClaim(resource, claim, undefined, { signal: call.signal });
      binding.catch(() => {}); // awaited below
      await eventually(async () => (await connectionsTo(redis.port)) === 1, 'the bind connected to the stopped server');
      call.abort();
      await assert.rejects(binding, isAbort);
      await eventually(async () => (await connectionsTo(redis.port)) === 0, 'no connection left open to the server');
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
  });
});
