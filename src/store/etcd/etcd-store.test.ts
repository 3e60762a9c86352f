/**
 * What the etcd store does beyond the conformance suite: errors when etcd cannot be reached,
 * failover between members, compaction made by another client, retention, TLS.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdMissing, freePort, startEtcdCluster, type EtcdCluster } from '../../../test/support/etcd.js';
import { eventually } from '../../../test/support/eventually.js';
import { StoreError, type StoreEvent } from '../types.js';
import { brief, describeEvent, json, recorder, waitFor } from '../testing/conformance.js';
import { openEtcdStore } from './etcd-store.js';

const missing = etcdMissing();
let prefixes = 0;
const freshPrefix = () => `/etcd-store-test/${process.pid}/${++prefixes}`;

describe('etcd store: bad endpoints', () => {
  test('an unreachable etcd fails the open with unavailable, naming the endpoints', async () => {
    const port = await freePort();
    await assert.rejects(openEtcdStore({ endpoints: [`http://127.0.0.1:${port}`], compactionIntervalMs: 0 }), (err: unknown) => {
      assert.ok(err instanceof StoreError, String(err));
      assert.equal(err.code, 'unavailable');
      assert.match(err.message, new RegExp(`etcd is unreachable at http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\); check that etcd is running`));
      return true;
    });
  });

  test('endpoints that are not http(s)://host:port are refused before connecting', async () => {
    const cases = [
      { endpoints: [], want: /no etcd endpoints given/ },
      { endpoints: ['127.0.0.1:2379'], want: /expected http:\/\/host:port or https:\/\/host:port/ },
      { endpoints: ['unix:///run/etcd.sock'], want: /has scheme unix:/ },
      { endpoints: ['http://127.0.0.1'], want: /has no port/ },
      { endpoints: ['http://127.0.0.1:2379/v3'], want: /has a path/ },
    ];
    for (const c of cases) {
      await assert.rejects(openEtcdStore({ endpoints: c.endpoints, compactionIntervalMs: 0 }), c.want, JSON.stringify(c.endpoints));
    }
  });
});

describe('etcd store: one member, several clients', { skip: missing }, () => {
  let cluster: EtcdCluster | undefined;
  before(async () => {
    cluster = await startEtcdCluster(1);
  });
  after(async () => {
    await cluster?.stop();
  });
  const open = (keyPrefix: string, extra = {}) => openEtcdStore({ endpoints: cluster!.endpoints, keyPrefix, compactionIntervalMs: 0, ...extra });

  test('a compaction made by another client ends watches and lists below it with compacted, and is learnt', async () => {
    const keyPrefix = freshPrefix();
    const a = await open(keyPrefix);
    const b = await open(keyPrefix);
    try {
      const first = await a.create('/x', json({}));
      await a.create('/y', json({}));
      const head = (await b.create('/z', json({}))).modRevision;
      await b.compact(head);
      assert.ok(a.compactedRevision() < head, 'a has not heard of the compaction yet');
      await assert.rejects(a.list('/', { revision: first.modRevision }), { code: 'compacted' });
      const rec = recorder();
      a.watch('/', first.modRevision, rec);
      await waitFor(() => rec.errors.length === 1, 'the watch to end');
      assert.deepEqual(rec.events, []);
      assert.equal((rec.errors[0] as StoreError).code, 'compacted');
      assert.equal(a.compactedRevision(), head, 'etcd told the watch how far it compacted');
      const reopened = await open(keyPrefix);
      assert.equal(reopened.compactedRevision(), head, 'a new client finds the compacted revision');
      await reopened.close();
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a write by another client is seen by a watch, and advances the revision', async () => {
    const keyPrefix = freshPrefix();
    const a = await open(keyPrefix);
    const b = await open(keyPrefix);
    try {
      const rec = recorder();
      a.watch('/', 0, rec);
      const kv = await b.create('/from-b', json({ v: 1 }));
      await waitFor(() => rec.events.length === 1, 'the event');
      assert.deepEqual(rec.events[0]?.kv, kv);
      assert.equal(a.currentRevision(), kv.modRevision);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("another client's revision: learnt on demand (latestRevision), and by itself with followRevisions", async () => {
    const keyPrefix = freshPrefix();
    const plain = await open(keyPrefix);
    const following = await open(keyPrefix, { followRevisions: true });
    const writer = await open(keyPrefix);
    try {
      const kv = await writer.create('/elsewhere', json({ v: 1 }));
      // The follower is not counted among the watchers callers opened.
      assert.equal(following.watcherCount(), 0);
      await waitFor(() => following.currentRevision() >= kv.modRevision, 'the following store to learn the revision');
      assert.ok(plain.currentRevision() < kv.modRevision, 'a store without followRevisions only knows what it saw');
      assert.ok((await plain.latestRevision()) >= kv.modRevision);
      assert.ok(plain.currentRevision() >= kv.modRevision);
      assert.equal(await plain.checkReachable(), undefined);
    } finally {
      await plain.close();
      await following.close();
      await writer.close();
    }
  });

  test('retention compacts what is both older than minAgeMs and more than minRevisions behind', async () => {
    let clock = 0;
    const s = await open(freshPrefix(), { retention: { minRevisions: 1, minAgeMs: 100_000 }, now: () => clock });
    try {
      const at = async (ms: number, writes: number) => {
        clock = ms;
        for (let i = 0; i < writes; i++) await s.create(`/r/${ms}/${i}`, json({}));
        return s.applyRetention();
      };
      const before = s.compactedRevision();
      assert.equal(await at(0, 10), before, 'nothing is old enough at first');
      const sampledAt50 = s.currentRevision() + 10;
      await at(50_000, 10);
      assert.equal(s.compactedRevision(), before, 'nothing is 100 s old yet');
      // At 150 s, the newest revision at least 100 s old is the one sampled at 50 s.
      assert.equal(await at(150_000, 2), sampledAt50);
      assert.equal(s.compactedRevision(), sampledAt50);
      await assert.rejects(s.list('/', { revision: sampledAt50 - 1 }), { code: 'compacted' });
      assert.equal(await s.count('/r/'), 22, 'latest values survive');
      // A retention that keeps many revisions wins over age.
      const keepMany = await open(freshPrefix(), { retention: { minRevisions: 1000, minAgeMs: 0 } });
      assert.equal(await keepMany.applyRetention(), keepMany.compactedRevision());
      await keepMany.close();
    } finally {
      await s.close();
    }
  });
});

describe('etcd store: failover in a 3-member cluster', { skip: missing }, () => {
  let cluster: EtcdCluster | undefined;
  before(async () => {
    cluster = await startEtcdCluster(3);
  });
  after(async () => {
    await cluster?.stop();
  });

  test('when the member in use dies, calls and watches go on on another, with no gap and no duplicate', async () => {
    const c = cluster!;
    const s = await openEtcdStore({ endpoints: c.endpoints, keyPrefix: freshPrefix(), compactionIntervalMs: 0 });
    try {
      const rec = recorder();
      s.watch('/', 0, rec);
      const failures: string[] = [];
      /**
       * createSurely creates `key` as a client of the API would: a write etcd could not confirm
       * (the leader died with it) is reported as unavailable, never as a wrong answer; the
       * client reads the key to learn whether it was applied, and writes again if not.
       */
      const createSurely = async (key: string) => {
        for (let attempt = 0; attempt < 5; attempt++) {
          try {
            return await s.create(key, json({}));
          } catch (err) {
            if (!(err instanceof StoreError && err.code === 'unavailable')) throw err;
            failures.push(err.message);
            const present = await s.get(key);
            if (present) return present;
          }
        }
        assert.fail(`cannot create ${key}: ${failures.join('; ')}`);
      };
      for (let i = 0; i < 5; i++) await createSurely(`/before/${i}`);
      await waitFor(() => rec.events.length === 5, 'the first events');
      await c.members[0].kill();
      for (let i = 0; i < 5; i++) await createSurely(`/after/${i}`);
      const all = await s.list('/');
      assert.equal(all.items.length, 10, 'reads go on too');
      for (const f of failures) assert.match(f, /may or may not have been applied/);
      const written = all.items.map((kv) => kv.modRevision).sort((x, y) => x - y);
      await waitFor(() => rec.events.length >= 10 || rec.errors.length > 0, 'the events after the failover');
      assert.deepEqual(rec.errors, []);
      assert.deepEqual(
        rec.events.map((e) => e.kv.modRevision),
        written,
      );
    } finally {
      await s.close();
    }
  });
});

describe('etcd store: TLS with a client certificate', { skip: missing || (hasOpenssl() ? false : 'openssl is missing') }, () => {
  let dir = '';
  let cluster: EtcdCluster | undefined;
  let files: { ca: Buffer; cert: Buffer; key: Buffer; otherCa: Buffer };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'conductor-etcd-tls-'));
    makeCertificates(dir);
    const read = (name: string) => readFileSync(join(dir, name));
    files = { ca: read('ca.crt'), cert: read('client.crt'), key: read('client.key'), otherCa: read('other-ca.crt') };
    cluster = await startEtcdCluster(1, {
      scheme: 'https',
      extraArgs: [
        `--cert-file=${join(dir, 'server.crt')}`,
        `--key-file=${join(dir, 'server.key')}`,
        '--client-cert-auth',
        `--trusted-ca-file=${join(dir, 'ca.crt')}`,
      ],
      healthy: async (m) => {
        try {
          const s = await openEtcdStore({ endpoints: [m.clientUrl], tls: { ca: files.ca, cert: files.cert, key: files.key }, compactionIntervalMs: 0 });
          await s.close();
          return true;
        } catch {
          return false;
        }
      },
    });
  });
  after(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the CA and the client certificate get in; a missing certificate or a wrong CA does not', async () => {
    const endpoints = cluster!.endpoints;
    const s = await openEtcdStore({ endpoints, tls: { ca: files.ca, cert: files.cert, key: files.key }, keyPrefix: freshPrefix(), compactionIntervalMs: 0 });
    try {
      const kv = await s.create('/secure', json({}));
      assert.equal((await s.get('/secure'))?.modRevision, kv.modRevision);
    } finally {
      await s.close();
    }
    await assert.rejects(openEtcdStore({ endpoints, tls: { ca: files.ca }, compactionIntervalMs: 0 }), { code: 'unavailable' }, 'no client certificate');
    await assert.rejects(
      openEtcdStore({ endpoints, tls: { ca: files.otherCa, cert: files.cert, key: files.key }, compactionIntervalMs: 0 }),
      { code: 'unavailable' },
      'a CA that did not sign the server',
    );
    await assert.rejects(
      openEtcdStore({ endpoints: endpoints.map((e) => e.replace('https:', 'http:')), tls: { ca: files.ca }, compactionIntervalMs: 0 }),
      /is http:\/\/ but TLS files were given/,
    );
  });
});

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** makeCertificates writes a CA, a server certificate for 127.0.0.1, a client certificate and an unrelated CA into `dir`. */
function makeCertificates(dir: string): void {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ca = (name: string) => {
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`);
  };
  ca('ca');
  ca('other-ca');
  const signed = (name: string, ext: string) => {
    writeFileSync(join(dir, `${name}.ext`), ext);
    run('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`);
    run(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    );
  };
  signed('server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  signed('client', 'extendedKeyUsage=clientAuth\n');
}

describe('etcd store: etcd lost and back', { skip: missing }, () => {
  let cluster: EtcdCluster | undefined;
  before(async () => {
    cluster = await startEtcdCluster(1);
  });
  after(async () => {
    await cluster?.stop();
  });

  test('checkReachable says why while etcd is down; the revision follower comes back by itself', { timeout: 60_000 }, async () => {
    const c = cluster!;
    const keyPrefix = freshPrefix();
    const following = await openEtcdStore({ endpoints: c.endpoints, keyPrefix, compactionIntervalMs: 0, followRevisions: true });
    try {
      assert.equal(await following.checkReachable(), undefined);
      await c.members[0].kill();
      assert.match((await following.checkReachable()) ?? '', /etcd is unreachable at http:\/\/127\.0\.0\.1:\d+/);
      c.members[0].restart();
      await eventually(async () => (await following.checkReachable()) === undefined, 'etcd to answer again', 30_000, 200);
      const writer = await openEtcdStore({ endpoints: c.endpoints, keyPrefix, compactionIntervalMs: 0 });
      try {
        // Written after the follower's watch broke: only a reopened follower learns it by itself.
        const kv = await writer.create('/after-restart', json({}));
        await eventually(() => following.currentRevision() >= kv.modRevision, 'the follower to learn a revision written after etcd came back', 30_000, 50);
      } finally {
        await writer.close();
      }
    } finally {
      await following.close();
    }
  });
});

describe('etcd store: gets from the watch cache', { skip: missing }, () => {
  let cluster: EtcdCluster | undefined;
  before(async () => {
    cluster = await startEtcdCluster(1);
  });
  after(async () => {
    await cluster?.stop();
  });
  const open = (keyPrefix: string, extra = {}) => openEtcdStore({ endpoints: cluster!.endpoints, keyPrefix, compactionIntervalMs: 0, ...extra });

  test('a get on a cached store right after a write by another client sees it, every round, answered by the cache', async () => {
    const keyPrefix = freshPrefix();
    const writer = await open(keyPrefix);
    // Another Conductor (another prefix) writing at the same time: revisions the cache sees no key of.
    const neighbour = await open(freshPrefix());
    const cached = await open(keyPrefix, { watchCache: true });
    try {
      const before = await writer.create('/present-before-open', json({ n: 0 }));
      const seenBefore = await cached.get('/present-before-open');
      assert.equal(seenBefore?.modRevision, before.modRevision);
      let current = (await writer.create('/k', json({ n: 0 }))).modRevision;
      for (let n = 1; n <= 200; n++) {
        if (n % 3 === 0) await neighbour.create(`/other-${n}`, json({ n }));
        if (n % 10 === 0) {
          // A delete, then a create again: the get sees the key gone, then back.
          await writer.delete('/k', current);
          assert.equal(await cached.get('/k'), undefined, `round ${n}: the key was deleted`);
          current = (await writer.create('/k', json({ n }))).modRevision;
        } else {
          current = (await writer.update('/k', current, json({ n }))).modRevision;
        }
        const got = await cached.get('/k');
        assert.equal(got?.modRevision, current, `round ${n}: the get saw the write acknowledged before it`);
        assert.equal(JSON.parse(got.value).n, n);
      }
      assert.equal(await cached.get('/never-written'), undefined);
      const stats = cached.readStats();
      assert.equal(stats.etcdGets, 0, 'no get fell back to an etcd Range (the cache always caught up)');
      assert.ok(stats.cacheGets >= 200, `gets answered by the cache: ${stats.cacheGets}`);
      assert.equal(stats.cache?.syncs, 1);
    } finally {
      await cached.close();
      await neighbour.close();
      await writer.close();
    }
  });

  test("lists of the latest state from the cache: the same pages as etcd gives, with another client's last write", async () => {
    const keyPrefix = freshPrefix();
    const writer = await open(keyPrefix);
    const cached = await open(keyPrefix, { watchCache: true });
    try {
      // Keys whose UTF-16 order differs from etcd's byte order ('\uffff' sorts after '😀' in UTF-16, before it in UTF-8).
      const names = ['b', 'a', 'é', '\uffff', '😀', 'a/b', 'z', 'ab'];
      for (const n of names) await writer.create(`/l/${n}`, json({ n }));
      await writer.create('/m/outside', json({}));
      const reads = cached.readStats().etcdGets;
      for (const limit of [0, 1, 3]) {
        let startAfter: string | undefined;
        for (;;) {
          const want = await writer.list('/l/', { limit, startAfter });
          const got = await cached.list('/l/', { limit, startAfter });
          assert.deepEqual(
            got.items.map((kv) => brief(kv)),
            want.items.map((kv) => brief(kv)),
            `limit ${limit} after ${String(startAfter)}`,
          );
          assert.equal(got.more, want.more);
          assert.equal(got.remaining, want.remaining);
          assert.ok(got.revision >= want.revision);
          if (!got.more) break;
          startAfter = got.items[got.items.length - 1].key;
        }
      }
      const last = await writer.delete('/l/b');
      const after = await cached.list('/l/');
      assert.ok(!after.items.some((kv) => kv.key === '/l/b'), 'the delete acknowledged before the list is reflected');
      assert.ok(after.revision >= last.modRevision);
      // Keys created and deleted after the prefix was first listed take their places in etcd's order.
      for (const n of ['aa', '\ufffe', '😁', '0']) await writer.create(`/l/${n}`, json({ n }));
      await writer.delete('/l/z');
      await writer.update('/l/a', (await writer.get('/l/a'))!.modRevision, json({ n: 'a again' }));
      for (const limit of [0, 2]) {
        const want = await writer.list('/l/', { limit });
        const got = await cached.list('/l/', { limit });
        assert.deepEqual(
          got.items.map((kv) => brief(kv)),
          want.items.map((kv) => brief(kv)),
          `limit ${limit} after later writes`,
        );
        assert.equal(got.remaining, want.remaining);
      }
      assert.equal(cached.readStats().etcdGets, reads);
    } finally {
      await cached.close();
      await writer.close();
    }
  });

  test('gets that arrive together share one read of the revision, sent after they came', async () => {
    const keyPrefix = freshPrefix();
    const cached = await open(keyPrefix, { watchCache: true });
    const writer = await open(keyPrefix);
    try {
      await cached.create('/a', json({}));
      const reads = cached.readStats().revisionReads;
      const got = await Promise.all(Array.from({ length: 50 }, () => cached.get('/a')));
      assert.ok(got.every((kv) => kv?.key === '/a'));
      // The 50 came in one turn of the event loop: one read, sent once they had all asked.
      assert.equal(cached.readStats().revisionReads - reads, 1);
      // A get that comes after another client's write was acknowledged sees it, with other
      // gets' reads on their way.
      const pending: Promise<unknown>[] = [];
      for (let n = 0; n < 20; n++) {
        pending.push(cached.get('/a'));
        const written = await writer.update('/a', (await writer.get('/a'))!.modRevision, json({ n }));
        const seen = await cached.get('/a');
        assert.equal(seen?.modRevision, written.modRevision, `round ${n}`);
      }
      await Promise.all(pending);
    } finally {
      await writer.close();
      await cached.close();
    }
  });

  test('a cached store that lost etcd reads etcd again once it is back, and its cache catches up', { timeout: 60_000 }, async () => {
    const c = cluster!;
    const keyPrefix = freshPrefix();
    const cached = await open(keyPrefix, { watchCache: true });
    try {
      await cached.create('/before', json({}));
      await c.members[0].kill();
      await assert.rejects(cached.get('/before'), { code: 'unavailable' });
      c.members[0].restart();
      await eventually(async () => (await cached.checkReachable()) === undefined, 'etcd to answer again', 30_000, 200);
      const writer = await open(keyPrefix);
      try {
        const kv = await writer.create('/after-restart', json({}));
        assert.equal((await cached.get('/after-restart'))?.modRevision, kv.modRevision, 'the get after etcd came back sees the new write');
        await eventually(() => cached.readStats().cache?.ready === true, 'the cache to be ready again', 30_000, 50);
        const before = cached.readStats().cacheGets;
        assert.equal((await cached.get('/after-restart'))?.modRevision, kv.modRevision);
        assert.equal((await cached.get('/before'))?.key, '/before');
        assert.equal(cached.readStats().cacheGets - before, 2, 'answered by the cache again');
      } finally {
        await writer.close();
      }
    } finally {
      await cached.close();
    }
  });
});

describe('etcd store: watches served by the watch cache', { skip: missing }, () => {
  let cluster: EtcdCluster | undefined;
  before(async () => {
    cluster = await startEtcdCluster(1);
  });
  after(async () => {
    await cluster?.stop();
  });
  const open = (keyPrefix: string, extra = {}) => openEtcdStore({ endpoints: cluster!.endpoints, keyPrefix, compactionIntervalMs: 0, ...extra });

  test("100 watchers of one prefix share the cache's etcd watch: every event in order, decoded once, previous values from memory", async () => {
    const keyPrefix = freshPrefix();
    const writer = await open(keyPrefix);
    const plain = await open(keyPrefix);
    const cached = await open(keyPrefix, { watchCache: true });
    try {
      const start = (await writer.create('/w/before', json({ n: 0 }))).modRevision;
      await waitFor(() => (cached.readStats().cache?.revision ?? 0) >= start, 'the cache to see the first write');
      const recs = Array.from({ length: 100 }, () => recorder());
      for (const rec of recs) cached.watch('/w/', start, rec);
      const other = recorder();
      cached.watch('/other/', start, other);
      // The same events from an etcd watch of its own (no cache): what the cached ones must match.
      const want = recorder();
      await plain.latestRevision();
      plain.watch('/w/', start, want);
      let rev = (await writer.create('/w/a', json({ n: 1 }))).modRevision;
      rev = (await writer.update('/w/a', rev, json({ n: 2 }))).modRevision;
      await writer.create('/other/x', json({}));
      await writer.create('/w/b', json({ n: 3 }));
      const last = (await writer.delete('/w/a', rev)).modRevision;
      await waitFor(() => recs.every((r) => r.events.length === 4) && want.events.length === 4, 'every watcher to get 4 events');
      assert.deepEqual(
        want.events.map((e) => `${e.type} ${e.kv.key}@${e.kv.modRevision}`),
        [`put /w/a@${last - 4}`, `put /w/a@${last - 3}`, `put /w/b@${last - 1}`, `delete /w/a@${last}`],
      );
      for (const rec of recs) {
        assert.deepEqual(rec.events.map(describeEvent), want.events.map(describeEvent), 'the same events, previous values and all');
        // The very objects of the first watcher: decoded once for all of them.
        rec.events.forEach((e, i) => assert.equal(e.kv, recs[0].events[i].kv));
        assert.deepEqual(rec.errors, []);
      }
      await waitFor(() => other.events.length === 1, 'the other prefix to get its event');
      assert.equal(other.events[0].kv.key, '/other/x');
      const stats = cached.readStats();
      assert.deepEqual(stats.watchStarts, { cache: 101, etcd: 0 }, 'no etcd watch besides the cache');
      assert.equal(stats.cache?.watchers, 101);
      assert.equal(cached.watcherCount(), 101);
    } finally {
      await cached.close();
      await plain.close();
      await writer.close();
    }
  });

  test("what the cache hands out cannot be changed: events, their values, gets and lists are frozen; the value held is not the event's object", async () => {
    const keyPrefix = freshPrefix();
    const cached = await open(keyPrefix, { watchCache: true });
    try {
      const start = cached.currentRevision();
      const rec = recorder();
      cached.watch('/f/', start, rec);
      const created = await cached.create('/f/a', json({ n: 1 }));
      await waitFor(() => rec.events.length === 1, 'the event');
      const [event] = rec.events;
      assert.ok(Object.isFrozen(event) && Object.isFrozen(event.kv), 'the event and its KeyValue');
      assert.throws(() => {
        (event.kv as { value: string }).value = 'changed by a consumer';
      }, TypeError);
      const got = await cached.get('/f/a');
      assert.ok(got && Object.isFrozen(got));
      assert.equal(got.value, created.value, 'the value held is intact');
      assert.notEqual(got, event.kv, 'what a consumer keeps per event object goes with the event, not with the key');
      const listed = await cached.list('/f/');
      assert.ok(listed.items.every((kv) => Object.isFrozen(kv)));
      assert.equal(cached.readStats().cacheGets, 1);
      // A watcher that starts later is given the same frozen event from the history.
      const late = recorder();
      cached.watch('/f/', start, late);
      await waitFor(() => late.events.length === 1, 'the history');
      assert.equal(late.events[0], event);
    } finally {
      await cached.close();
    }
  });

  test("values that are not ASCII come through the cache as they were written: gets, lists, watch events and a delete's last value", async () => {
    const keyPrefix = freshPrefix();
    const cached = await open(keyPrefix, { watchCache: true });
    try {
      const start = cached.currentRevision();
      const rec = recorder();
      cached.watch('/u/', start, rec);
      // Two-, three- and four-byte UTF-8 characters (the last a surrogate pair in a JS string).
      const text = JSON.stringify({ note: 'naïve café – 東京 🚀' });
      const created = await cached.create('/u/a', () => text);
      const updated = await cached.update('/u/a', created.modRevision, () => text.replace('café', 'thé'));
      await cached.delete('/u/a', updated.modRevision);
      const again = await cached.create('/u/b', () => text);
      await waitFor(() => rec.events.length === 4, 'the events');
      assert.deepEqual(
        rec.events.map((e) => [e.type, e.kv.key, e.kv.value, e.prev?.value]),
        [
          ['put', '/u/a', text, undefined],
          ['put', '/u/a', text.replace('café', 'thé'), text],
          ['delete', '/u/a', text.replace('café', 'thé'), text.replace('café', 'thé')],
          ['put', '/u/b', text, undefined],
        ],
      );
      const got = await cached.get('/u/b');
      assert.equal(got?.value, text);
      assert.equal(got?.modRevision, again.modRevision);
      assert.deepEqual(
        (await cached.list('/u/')).items.map((kv) => [kv.key, kv.value]),
        [['/u/b', text]],
      );
      assert.ok(cached.readStats().cacheGets >= 1, 'answered by the cache');
    } finally {
      await cached.close();
    }
  });

  test('the history is bounded by bytes too (watchHistoryBytes): a watch from before what it holds goes to etcd, with the same events', async () => {
    const keyPrefix = freshPrefix();
    // Room for about two of these events (1 KB values), not three.
    const cached = await open(keyPrefix, { watchCache: true, watchHistoryBytes: 2_500 });
    try {
      const revs: number[] = [];
      const big = 'x'.repeat(1_000);
      for (let n = 0; n < 5; n++) revs.push((await cached.create(`/k${n}`, json({ big }))).modRevision);
      await waitFor(() => (cached.readStats().cache?.revision ?? 0) >= revs[4], 'the cache to see every write');
      const stats = cached.readStats().cache!;
      assert.equal(stats.history.events, 2);
      assert.ok(stats.history.bytes <= 2_500, `${stats.history.bytes} bytes held`);
      assert.equal(stats.historyFloor, revs[2]);
      const old = recorder();
      cached.watch('/', revs[0], old);
      await waitFor(() => old.events.length === 4, 'the watch to catch up');
      assert.deepEqual(
        old.events.map((e) => e.kv.key),
        ['/k1', '/k2', '/k3', '/k4'],
      );
      assert.deepEqual(cached.readStats().watchStarts, { cache: 0, etcd: 1 });
    } finally {
      await cached.close();
    }
  });

  test('a watch from before the history the cache keeps gets an etcd watch of its own, with the same events', async () => {
    const keyPrefix = freshPrefix();
    const cached = await open(keyPrefix, { watchCache: true, watchHistoryEvents: 3 });
    try {
      const revs: number[] = [];
      for (let n = 0; n < 8; n++) revs.push((await cached.create(`/k${n}`, json({ n }))).modRevision);
      await waitFor(() => (cached.readStats().cache?.revision ?? 0) >= revs[7], 'the cache to see every write');
      assert.equal(cached.readStats().cache?.historyFloor, revs[4], 'the history holds the last 3 events');
      const recent = recorder();
      cached.watch('/', revs[4], recent);
      const old = recorder();
      cached.watch('/', revs[1], old);
      await waitFor(() => recent.events.length === 3 && old.events.length === 6, 'both watches to catch up');
      assert.deepEqual(
        recent.events.map((e) => e.kv.key),
        ['/k5', '/k6', '/k7'],
      );
      assert.deepEqual(
        old.events.map((e) => e.kv.key),
        ['/k2', '/k3', '/k4', '/k5', '/k6', '/k7'],
      );
      assert.deepEqual(cached.readStats().watchStarts, { cache: 1, etcd: 1 });
      // Both go on live, each once.
      await cached.create('/k8', json({ n: 8 }));
      await waitFor(() => recent.events.length === 4 && old.events.length === 7, 'the next event on both');
      assert.equal(recent.events[3].kv.key, '/k8');
      assert.equal(old.events[6].kv.key, '/k8');
    } finally {
      await cached.close();
    }
  });

  test('a paused watcher resumes from the history, or from etcd once the history moved past it: no gap, no duplicate', async () => {
    const keyPrefix = freshPrefix();
    const cached = await open(keyPrefix, { watchCache: true, watchHistoryEvents: 4 });
    try {
      const start = cached.currentRevision();
      let take = 1;
      const rec = recorder();
      const handlers = {
        onEvents: (events: StoreEvent[]) => {
          const n = Math.min(take, events.length);
          rec.onEvents(events.slice(0, n));
          take -= n;
          return n;
        },
        onError: (err: Error) => rec.onError(err),
      };
      const watcher = cached.watch('/', start, handlers);
      await cached.create('/a', json({}));
      await cached.create('/b', json({}));
      await waitFor(() => rec.events.length === 1, 'the first event');
      // Resumed while the history still holds what it missed: served by the cache.
      take = 1;
      watcher.resume();
      await waitFor(() => rec.events.length === 2, 'the second event, from the history');
      assert.deepEqual(cached.readStats().watchStarts, { cache: 1, etcd: 0 });
      // Paused again (nothing to take), while more events than the history holds go by.
      take = 0;
      for (let n = 0; n < 6; n++) await cached.create(`/c${n}`, json({}));
      await waitFor(() => (cached.readStats().cache?.historyFloor ?? 0) > rec.events[1].kv.modRevision, 'the history to move on');
      take = Infinity;
      watcher.resume();
      await waitFor(() => rec.events.length === 8, 'every event, from etcd');
      assert.deepEqual(
        rec.events.map((e) => e.kv.key),
        ['/a', '/b', '/c0', '/c1', '/c2', '/c3', '/c4', '/c5'],
      );
      assert.deepEqual(cached.readStats().watchStarts, { cache: 1, etcd: 1 });
      await cached.create('/d', json({}));
      await waitFor(() => rec.events.length === 9, 'live again');
      assert.equal(rec.events[8].kv.key, '/d');
      assert.deepEqual(rec.errors, []);
    } finally {
      await cached.close();
    }
  });
});
