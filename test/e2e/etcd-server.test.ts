/**
 * `conductor server --etcd-servers`: the whole Conductor on a real etcd (started by the test),
 * driven with the real kubectl. Bad flags and an unreachable etcd stop the start with a clear
 * message; etcd lost while serving answers 503 with Retry-After and fails /readyz naming the
 * check, and the server recovers by itself once etcd is back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { connect as h2connect } from 'node:http2';
import { join } from 'node:path';
import { etcdMissing, freePort, startEtcdCluster, type EtcdCluster } from '../support/etcd.js';
import { eventually } from '../support/eventually.js';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { runCli } from '../support/cli.js';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

const missing = etcdMissing();

describe('conductor server on etcd: bad input', { skip: missing }, () => {
  test('an unreachable etcd at start: a message naming the endpoint, exit 1', async () => {
    const dataDir = tempDir();
    try {
      const port = await freePort();
      const r = await runCli(['server', '--data-dir', dataDir, '--port', '0', '--etcd-servers', `http://127.0.0.1:${port}`]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /cannot start the server: .*etcd is unreachable at http:\/\/127\.0\.0\.1:\d+/);
      assert.doesNotMatch(r.stdout, /conductor ready/);
    } finally {
      removeDir(dataDir);
    }
  });

  const cases: { reason: string; args: string[]; want: RegExp }[] = [
    { reason: 'not a URL', args: ['--etcd-servers', 'etcd-1:2379'], want: /--etcd-servers.*expected http:\/\/host:port/s },
    { reason: 'no port', args: ['--etcd-servers', 'http://127.0.0.1'], want: /--etcd-servers.*with a port/s },
    { reason: 'a path', args: ['--etcd-servers', 'http://127.0.0.1:2379/v3'], want: /--etcd-servers.*no path/s },
    { reason: 'a bad prefix', args: ['--etcd-servers', 'http://127.0.0.1:2379', '--etcd-prefix', 'conductor/'], want: /--etcd-prefix/ },
    { reason: 'a certificate without its key', args: ['--etcd-servers', 'https://127.0.0.1:2379', '--etcd-certfile', '/nonexistent'], want: /--etcd-keyfile/ },
    { reason: 'TLS files with http://', args: ['--etcd-servers', 'http://127.0.0.1:2379', '--etcd-cafile', '/nonexistent'], want: /https:\/\// },
    {
      reason: 'an unreadable CA file',
      args: ['--etcd-servers', 'https://127.0.0.1:2379', '--etcd-cafile', '/nonexistent/ca.pem'],
      want: /--etcd-cafile \/nonexistent\/ca\.pem: cannot read it/,
    },
    { reason: 'TLS files without etcd', args: ['--etcd-cafile', '/nonexistent'], want: /need --etcd-servers/ },
  ];
  for (const c of cases) {
    test(`a bad etcd flag (${c.reason}): exits non-zero naming the flag, before serving`, async () => {
      const dataDir = tempDir();
      try {
        const r = await runCli(['server', '--data-dir', dataDir, '--port', '0', ...c.args]);
        // 1 when the argument parser refuses it, 2 when the checks after parsing do.
        assert.ok(r.code === 1 || r.code === 2, `${c.reason}: exit ${r.code}: ${r.stderr}`);
        assert.doesNotMatch(r.stdout, /conductor ready/);
        assert.match(r.stderr, c.want);
      } finally {
        removeDir(dataDir);
      }
    });
  }
});

describe('conductor server on etcd', { skip: missing }, () => {
  let etcd: EtcdCluster;
  let server: ServerProcess;
  let api: ApiHandle;

  before(async () => {
    etcd = await startEtcdCluster(1);
    server = await startServer({ args: ['--etcd-servers', etcd.endpoints.join(',')] });
    api = apiFromKubeconfig(server.kubeconfig);
  });
  after(async () => {
    api?.close();
    await server?.kill();
    if (server) removeDir(server.dataDir);
    await etcd?.stop();
  });

  test('serves kubectl from etcd: the data dir holds credentials, not the objects', async () => {
    await kubectlOk(server, ['create', 'configmap', 'on-etcd', '--from-literal=a=1']);
    const got = JSON.parse(await kubectlOk(server, ['get', 'configmap', 'on-etcd', '-o', 'json'])) as { data: { a: string } };
    assert.equal(got.data.a, '1');
    assert.equal(existsSync(join(server.dataDir, 'state.db')), false, 'no SQLite file next to the credentials');
    assert.ok(existsSync(join(server.dataDir, 'kubeconfig')));
    // Conductor's CRDs are installed in etcd and served.
    const crds = await kubectlOk(server, ['get', 'crd', '-o', 'name']);
    assert.match(crds, /claimquotas\.core\.conductor\.io/);
  });

  test("/metrics shows the etcd store: transaction latency and size per commit, each member's database size, gets by source", async () => {
    assert.equal((await api.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'metered' } })).status, 201);
    const res = await api.request('GET', '/metrics');
    assert.equal(res.status, 200, res.text);
    const value = (series: string) => {
      const line = res.text.split('\n').find((l) => l.startsWith(`${series} `));
      assert.ok(line, `${series} in /metrics`);
      return Number(line.slice(series.length + 1));
    };
    assert.ok(value('conductor_store_commit_duration_seconds_count') >= 1, 'write transactions timed');
    const commits = value('conductor_store_commit_batch_size_count');
    assert.ok(commits >= 1);
    assert.equal(value('conductor_store_commit_batch_size_sum'), commits, 'one write per etcd transaction');
    const endpoint = etcd.endpoints[0];
    assert.ok(value(`conductor_store_db_size_bytes{endpoint="${endpoint}"}`) > 0, "the member's database file size");
    const inUse = value(`conductor_store_db_size_in_use_bytes{endpoint="${endpoint}"}`);
    assert.ok(inUse > 0 && inUse <= value(`conductor_store_db_size_bytes{endpoint="${endpoint}"}`), 'the bytes in use, at most the file size');
    assert.ok(!/conductor_store_wal_bytes/.test(res.text), 'no SQLite WAL on etcd');
    assert.ok(value('conductor_store_gets_total{source="cache"}') >= 0, 'gets by where they were answered');
  });

  test('a long list from the watch cache (streamed from the stored bytes) is valid JSON, each item exactly as its get answers', async () => {
    assert.equal((await api.request('POST', '/api/v1/namespaces', { metadata: { name: 'long-list' } })).status, 201);
    const names: string[] = [];
    for (let i = 0; i < 620; i++) names.push(`item-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < names.length; i += 20) {
      const made = await Promise.all(
        names.slice(i, i + 20).map((name, j) => {
          const k = i + j;
          // Non-ASCII text of every UTF-8 length, and (every 50th) a resourceVersion in an
          // annotation: that text is not spliced but parsed and serialized.
          const annotations = k % 50 === 0 ? { copied: '{"resourceVersion":"1"}' } : undefined;
          return api.request('POST', '/api/v1/namespaces/long-list/configmaps', {
            metadata: { name, annotations },
            data: { pad: 'p'.repeat(k), text: `é日😀 ${k}` },
          });
        }),
      );
      for (const r of made) assert.equal(r.status, 201, r.text);
    }
    const r = await api.request('GET', '/api/v1/namespaces/long-list/configmaps');
    assert.equal(r.status, 200, r.text);
    const list = JSON.parse(r.text) as { kind: string; metadata: { resourceVersion: string }; items: { metadata: { name: string } }[] };
    assert.equal(list.kind, 'ConfigMapList');
    assert.deepEqual(
      list.items.map((i) => i.metadata.name),
      names,
    );
    for (let i = 0; i < names.length; i += 50) {
      const gets = await Promise.all(names.slice(i, i + 50).map((name) => api.request('GET', `/api/v1/namespaces/long-list/configmaps/${name}`)));
      gets.forEach((g, j) => assert.deepEqual(list.items[i + j], JSON.parse(g.text), names[i + j]));
    }
    // Over HTTP/2 (kubectl's protocol): the same items.
    const session = h2connect(api.url, { ca: api.ca });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const stream = session.request({
          ':path': '/api/v1/namespaces/long-list/configmaps',
          authorization: `Bearer ${api.token}`,
          accept: 'application/json',
        });
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        stream.on('error', reject);
      });
      // The list's resourceVersion may have moved (the controllers' Lease renewals): the items are the same.
      assert.deepEqual((JSON.parse(body) as typeof list).items, list.items);
    } finally {
      session.close();
    }
  });

  test('etcd lost: 503 with Retry-After, /readyz fails naming etcd; back: ready and serving by itself', { timeout: 60_000 }, async () => {
    const member = etcd.members[0];
    await member.kill();
    const res = await api.request('GET', '/api/v1/namespaces/default/configmaps/on-etcd');
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json().reason, 'ServiceUnavailable');
    assert.match(res.json().message, /etcd is unreachable/);
    assert.ok(Number(res.headers['retry-after']) >= 1, `Retry-After: ${String(res.headers['retry-after'])}`);
    const write = await api.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'while-lost' } });
    assert.equal(write.status, 503, write.text);
    const ready = await api.request('GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.match(ready.text, /\[-\]etcd failed: .*etcd is unreachable/);
    // The process goes on (liveness), only readiness fails.
    assert.equal((await api.request('GET', '/livez')).status, 200);

    member.restart();
    await eventually(async () => (await api.request('GET', '/readyz')).status === 200, '/readyz to pass again once etcd is back', 45_000, 200);
    const back = await api.request('GET', '/api/v1/namespaces/default/configmaps/on-etcd');
    assert.equal(back.status, 200, back.text);
    // Writes, a CRD-served kind and watches work again: the caches fed by etcd watches resumed.
    await kubectlOk(server, ['create', 'configmap', 'after-recovery']);
    await kubectlOk(server, ['get', 'claimquotas', '-A']);
    const watch = api.watch('/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=' + back.json().metadata.resourceVersion);
    try {
      await kubectlOk(server, ['create', 'configmap', 'seen-by-watch']);
      await watch.until((events) => events.some((e) => e.object?.metadata?.name === 'seen-by-watch'), 15_000);
    } finally {
      watch.stop();
    }
  });
});
