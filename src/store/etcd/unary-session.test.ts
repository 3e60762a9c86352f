/**
 * UnarySession, the unary calls made without grpc-js: against a real etcd (answers, etcd's
 * own errors), a port nobody listens on, and stand-in HTTP/2 servers for what a real etcd
 * cannot be made to do on demand (never answer; drop the connection after the request).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { etcdMissing, freePort, startEtcdCluster, type EtcdCluster } from '../../../test/support/etcd.js';
import { isUnreachable } from './client.js';
import { etcdServices, etcdUnaryMethods, type RangeRequest, type RangeResponse, type TxnRequest, type TxnResponse } from './rpc.js';
import { UnarySession, type UnaryMethod } from './unary-session.js';

const methods = etcdUnaryMethods();
const range = methods.Range as unknown as UnaryMethod<RangeRequest, RangeResponse>;
const txn = methods.Txn as unknown as UnaryMethod<TxnRequest, TxnResponse>;
const soon = () => Date.now() + 5_000;
const key = (name: string) => Buffer.from(`/unary-session-test/${process.pid}/${name}`);

describe('unary session on etcd', { skip: etcdMissing() }, () => {
  let cluster: EtcdCluster | undefined;
  before(async () => {
    cluster = await startEtcdCluster(1);
  });
  after(async () => {
    await cluster?.stop();
  });

  test('a transaction and a read answer as through grpc-js (same messages, same decoding)', async () => {
    const session = new UnarySession(cluster!.endpoints[0], undefined);
    const { KV } = etcdServices();
    const kv = new KV(cluster!.endpoints[0].replace('http://', ''), grpc.credentials.createInsecure());
    try {
      const k = key('same');
      const written = await session.call(txn, { compare: [], success: [{ request_put: { key: k, value: Buffer.from('v1') } }], failure: [] }, soon());
      assert.equal(written.succeeded, true);
      assert.ok((written.header?.revision ?? 0) > 0, JSON.stringify(written.header));
      const request: RangeRequest = { key: k };
      const ours = await session.call(range, request, soon());
      const theirs = await new Promise<RangeResponse>((resolve, reject) => kv.Range(request, {}, (err, res) => (err ? reject(err) : resolve(res!))));
      assert.deepEqual(ours, theirs);
      assert.equal(ours.kvs[0].value.toString(), 'v1');
      assert.equal(ours.kvs[0].mod_revision, written.header?.revision);
    } finally {
      session.close();
      kv.close();
    }
  });

  test("etcd's refusal comes back with its gRPC code and message (a read at a future revision)", async () => {
    const session = new UnarySession(cluster!.endpoints[0], undefined);
    try {
      await assert.rejects(session.call(range, { key: key('x'), revision: 1_000_000_000 }, soon()), (err: grpc.ServiceError) => {
        assert.equal(err.code, grpc.status.OUT_OF_RANGE, err.message);
        assert.match(err.details, /required revision is a future revision/);
        return true;
      });
    } finally {
      session.close();
    }
  });

  test('many calls at once share the session and each gets its own answer', async () => {
    const session = new UnarySession(cluster!.endpoints[0], undefined);
    try {
      const names = Array.from({ length: 50 }, (_, i) => `many-${i}`);
      await Promise.all(
        names.map((n) => session.call(txn, { compare: [], success: [{ request_put: { key: key(n), value: Buffer.from(n) } }], failure: [] }, soon())),
      );
      const read = await Promise.all(names.map((n) => session.call(range, { key: key(n) }, soon())));
      assert.deepEqual(
        read.map((r) => r.kvs[0]?.value.toString()),
        names,
      );
    } finally {
      session.close();
    }
  });
});

describe('unary session failures', () => {
  test('nobody listening: UNAVAILABLE, "No connection established" naming the cause (the call was never sent)', async () => {
    const port = await freePort();
    const session = new UnarySession(`http://127.0.0.1:${port}`, undefined);
    try {
      await assert.rejects(session.call(range, { key: key('x') }, soon()), (err: grpc.ServiceError) => {
        assert.equal(err.code, grpc.status.UNAVAILABLE);
        assert.match(err.details, /^No connection established\. Last error: .*ECONNREFUSED/);
        assert.ok(isUnreachable(err));
        return true;
      });
    } finally {
      session.close();
    }
  });

  test('a member that never answers (stand-in HTTP/2 server): DEADLINE_EXCEEDED at the deadline', async () => {
    const server = http2.createServer();
    server.on('stream', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = new UnarySession(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, undefined);
    try {
      await assert.rejects(session.call(range, { key: key('x') }, Date.now() + 200), (err: grpc.ServiceError) => {
        assert.equal(err.code, grpc.status.DEADLINE_EXCEEDED);
        assert.ok(isUnreachable(err));
        return true;
      });
    } finally {
      session.close();
      server.close();
    }
  });

  test('a connection dropped after the request went out (stand-in HTTP/2 server): UNAVAILABLE, not "No connection established"', async () => {
    const server = http2.createServer();
    server.on('stream', (stream) => stream.session?.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = new UnarySession(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, undefined);
    try {
      await assert.rejects(session.call(txn, { compare: [], success: [], failure: [] }, soon()), (err: grpc.ServiceError) => {
        assert.equal(err.code, grpc.status.UNAVAILABLE, err.message);
        assert.doesNotMatch(err.details, /No connection established/);
        return true;
      });
      // The next call connects again (and meets the same server).
      await assert.rejects(session.call(range, { key: key('x') }, soon()), (err: grpc.ServiceError) => err.code === grpc.status.UNAVAILABLE);
    } finally {
      session.close();
      server.close();
    }
  });
});
