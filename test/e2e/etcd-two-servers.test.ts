/**
 * Two `conductor server`s on one real etcd, as the HA recipe runs them: the second server's
 * data dir is a copy of the first's (one CA, one serving certificate, one admin token, one
 * encryption key set). What one writes the other serves and watches; compare-and-swap holds
 * across them; CRDs, RBAC and encrypted Secrets are shared; the controllers run in exactly one
 * of them, and the other takes over when that one is SIGKILLed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { etcdMissing, freePort, startEtcdCluster, type EtcdCluster } from '../support/etcd.js';
import { eventually } from '../support/eventually.js';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectl, kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

const missing = etcdMissing();
/** Short lease timings so a takeover is quick: lease 4 s, renew deadline 3 s, retry 1 s. */
const LEASE_SECONDS = 4;
const LEASE = ['--leader-elect-lease-duration', String(LEASE_SECONDS), '--leader-elect-renew-deadline', '3', '--leader-elect-retry-period', '1'];

const haproxyBinary = process.env.CONDUCTOR_HAPROXY_BIN ?? '/usr/sbin/haproxy';

/** The README's HAProxy configuration (High availability, step 3) for two local servers. */
function haproxyConfig(port: number, servers: string[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode tcp',
    '  timeout connect 5s',
    '  timeout client 1h',
    '  timeout server 1h',
    'frontend conductor',
    `  bind 127.0.0.1:${port}`,
    '  default_backend conductor-servers',
    'backend conductor-servers',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  default-server check check-ssl verify none inter 2s fall 2 rise 2',
    ...servers.map((url, i) => `  server c${i + 1} ${new URL(url).host}`),
    '',
  ].join('\n');
}

interface Lease {
  spec?: { holderIdentity?: string };
}

describe('two conductor servers on one etcd', { skip: missing }, () => {
  let etcd: EtcdCluster;
  let a: ServerProcess;
  let b: ServerProcess;
  let apiA: ApiHandle;
  let apiB: ApiHandle;
  const dirs: string[] = [];

  before(async () => {
    etcd = await startEtcdCluster(1);
    const args = ['--etcd-servers', etcd.endpoints.join(','), '--log-level', 'info', ...LEASE];
    a = await startServer({ args });
    dirs.push(a.dataDir);
    // The second server gets the first one's credentials and keys (the recipe: copy the data dir).
    const root = tempDir();
    dirs.push(root);
    const dataDirB = join(root, 'data');
    cpSync(a.dataDir, dataDirB, { recursive: true });
    b = await startServer({ dataDir: dataDirB, args });
    apiA = apiFromKubeconfig(a.kubeconfig);
    apiB = apiFromKubeconfig(b.kubeconfig);
  });
  after(async () => {
    apiA?.close();
    apiB?.close();
    await a?.kill();
    await b?.kill();
    for (const d of dirs) removeDir(d);
    await etcd?.stop();
  });

  test('kubectl creates on A; a watch on B sees it', async () => {
    const listed = await apiB.request('GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(listed.status, 200, listed.text);
    const watch = apiB.watch(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${listed.json().metadata.resourceVersion}`);
    try {
      await kubectlOk(a, ['create', 'configmap', 'from-a', '--from-literal=k=v']);
      await watch.until((events) => events.some((e) => e.type === 'ADDED' && e.object?.metadata?.name === 'from-a'), 15_000);
    } finally {
      watch.stop();
    }
    const got = JSON.parse(await kubectlOk(b, ['get', 'configmap', 'from-a', '-o', 'json'])) as { data: { k: string } };
    assert.equal(got.data.k, 'v');
  });

  test('a resourceVersion handed out by A is known to B (get, list and watch from it)', async () => {
    const created = await apiA.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'rv-from-a' } });
    assert.equal(created.status, 201, created.text);
    const rv = created.json().metadata.resourceVersion as string;
    const list = await apiB.request('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    assert.equal(list.status, 200, list.text);
    assert.ok(list.json().items.some((i: { metadata: { name: string } }) => i.metadata.name === 'rv-from-a'));
    const watch = apiB.watch(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`);
    try {
      await apiA.request('PUT', '/api/v1/namespaces/default/configmaps/rv-from-a', { metadata: { name: 'rv-from-a', resourceVersion: rv }, data: { x: '1' } });
      await watch.until((events) => events.some((e) => e.type === 'MODIFIED' && e.object?.metadata?.name === 'rv-from-a'), 15_000);
      assert.ok(!watch.events.some((e) => e.type === 'ERROR'), JSON.stringify(watch.events));
    } finally {
      watch.stop();
    }
  });

  test("an update on B with A's stale resourceVersion is a 409", async () => {
    const created = await apiA.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'stale' }, data: { n: '0' } });
    assert.equal(created.status, 201, created.text);
    const stale = created.json().metadata.resourceVersion as string;
    const updated = await apiA.request('PUT', '/api/v1/namespaces/default/configmaps/stale', {
      metadata: { name: 'stale', resourceVersion: stale },
      data: { n: '1' },
    });
    assert.equal(updated.status, 200, updated.text);
    const onB = await apiB.request('PUT', '/api/v1/namespaces/default/configmaps/stale', {
      metadata: { name: 'stale', resourceVersion: stale },
      data: { n: '2' },
    });
    assert.equal(onB.status, 409, onB.text);
    assert.equal(onB.json().reason, 'Conflict');
  });

  test('64 concurrent read-modify-write incrementers spread over both servers lose no update', { timeout: 90_000 }, async () => {
    const path = '/api/v1/namespaces/default/configmaps/counter';
    assert.equal((await apiA.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'counter' }, data: { n: '0' } })).status, 201);
    const writers = 64;
    const each = 2;
    let conflicts = 0;
    const increment = async (api: ApiHandle) => {
      for (let attempt = 0; attempt < 500; attempt++) {
        const got = await api.request('GET', path);
        assert.equal(got.status, 200, got.text);
        const cm = got.json();
        cm.data.n = String(Number(cm.data.n) + 1);
        const put = await api.request('PUT', path, cm);
        if (put.status === 200) return;
        assert.equal(put.status, 409, put.text);
        conflicts++;
      }
      throw new Error('an incrementer gave up after 500 conflicts');
    };
    await Promise.all(
      Array.from({ length: writers }, async (_, i) => {
        for (let k = 0; k < each; k++) await increment(i % 2 === 0 ? apiA : apiB);
      }),
    );
    const final = (await apiB.request('GET', path)).json();
    assert.equal(final.data.n, String(writers * each), `conflicts retried: ${conflicts}`);
  });

  test("a write on A is seen by an immediate get on B (gets come from B's watch cache), round after round", { timeout: 90_000 }, async () => {
    const base = '/api/v1/namespaces/default/configmaps';
    const created = await apiA.request('POST', base, { metadata: { name: 'read-your-write' }, data: { n: '0' } });
    assert.equal(created.status, 201, created.text);
    let rv = created.json().metadata.resourceVersion as string;
    const cacheGets = async () => {
      const metrics = await apiB.request('GET', '/metrics');
      assert.equal(metrics.status, 200, metrics.text);
      const line = metrics.text.split('\n').find((l) => l.startsWith('conductor_store_gets_total{source="cache"} '));
      assert.ok(line, 'conductor_store_gets_total{source="cache"} on B');
      return Number(line.split(' ')[1]);
    };
    const cachedBefore = await cacheGets();
    for (let n = 1; n <= 100; n++) {
      if (n % 10 === 0) {
        // Deleted on A: gone on B at once; created again on A: there on B at once.
        assert.equal((await apiA.request('DELETE', `${base}/read-your-write`)).status, 200);
        const gone = await apiB.request('GET', `${base}/read-your-write`);
        assert.equal(gone.status, 404, `round ${n}: ${gone.text}`);
        const again = await apiA.request('POST', base, { metadata: { name: 'read-your-write' }, data: { n: String(n) } });
        assert.equal(again.status, 201, again.text);
        rv = again.json().metadata.resourceVersion as string;
      } else {
        const put = await apiA.request('PUT', `${base}/read-your-write`, {
          metadata: { name: 'read-your-write', resourceVersion: rv },
          data: { n: String(n) },
        });
        assert.equal(put.status, 200, put.text);
        rv = put.json().metadata.resourceVersion as string;
      }
      const got = await apiB.request('GET', `${base}/read-your-write`);
      assert.equal(got.status, 200, `round ${n}: ${got.text}`);
      assert.equal(got.json().metadata.resourceVersion, rv, `round ${n}: B answered the write A acknowledged before the get`);
      assert.equal(got.json().data.n, String(n));
    }
    const cached = (await cacheGets()) - cachedBefore;
    assert.ok(cached >= 100, `B answered the gets from its watch cache (${cached} cache gets)`);
  });

  test('a CRD created on A is served by B', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.ha.example.com' },
      spec: {
        group: 'ha.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
          },
        ],
      },
    };
    await kubectlOk(a, ['apply', '-f', '-'], { input: JSON.stringify(crd) });
    const widget = { apiVersion: 'ha.example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 3 } };
    await eventually(
      async () => (await kubectl(b, ['apply', '-f', '-'], { input: JSON.stringify(widget) })).code === 0,
      'B to serve the Widget kind',
      20_000,
      200,
    );
    const got = JSON.parse(await kubectlOk(a, ['get', 'widget', 'w1', '-o', 'json'])) as { spec: { size: number } };
    assert.equal(got.spec.size, 3);
  });

  test('RBAC written on A is enforced by B', async () => {
    const can = async () => (await kubectl(b, ['auth', 'can-i', 'list', 'configmaps', '-n', 'default', '--as', 'alice'])).stdout.trim();
    assert.match(await can(), /^no\b/);
    await kubectlOk(a, ['create', 'role', 'cm-reader', '-n', 'default', '--verb=list', '--resource=configmaps']);
    await kubectlOk(a, ['create', 'rolebinding', 'alice-reads', '-n', 'default', '--role=cm-reader', '--user=alice']);
    await eventually(async () => /^yes\b/.test(await can()), 'B to allow alice once A bound the role', 15_000, 200);
    await kubectlOk(b, ['get', 'configmaps', '-n', 'default', '--as', 'alice']);
  });

  test('a Secret written on A is read on B: one key set, stored encrypted', async () => {
    await kubectlOk(a, ['create', 'secret', 'generic', 'shared', '--from-literal=password=s3cret']);
    const got = JSON.parse(await kubectlOk(b, ['get', 'secret', 'shared', '-o', 'json'])) as { data: { password: string } };
    assert.equal(Buffer.from(got.data.password, 'base64').toString(), 's3cret');
  });

  test(
    "HAProxy in TCP mode in front of both (the README's configuration) serves kubectl",
    { skip: !existsSync(haproxyBinary) && `${haproxyBinary} is missing` },
    async () => {
      const port = await freePort();
      const dir = tempDir();
      dirs.push(dir);
      const cfg = join(dir, 'haproxy.cfg');
      writeFileSync(cfg, haproxyConfig(port, [a.url, b.url]));
      let log = '';
      const proxy: ChildProcess = spawn(haproxyBinary, ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
      proxy.stdout?.on('data', (d: Buffer) => (log += d.toString()));
      proxy.stderr?.on('data', (d: Buffer) => (log += d.toString()));
      const exited = new Promise<void>((r) => proxy.once('exit', () => r()));
      try {
        // The serving certificate covers 127.0.0.1, the balancer's address here (else --tls-san).
        const through = async (args: string[]) => kubectlOk(a, ['--server', `https://127.0.0.1:${port}`, ...args]);
        await eventually(
          async () => {
            try {
              return (await through(['get', 'configmap', 'from-a', '-o', 'name'])).trim() === 'configmap/from-a';
            } catch (err) {
              if (proxy.exitCode !== null) throw new Error(`haproxy exited: ${log}`, { cause: err });
              throw err;
            }
          },
          'kubectl through HAProxy',
          20_000,
          200,
        );
        // Several requests, spread over both servers by round robin, all answered.
        for (let i = 0; i < 4; i++) await through(['create', 'configmap', `via-lb-${i}`]);
        const names = await kubectlOk(b, ['get', 'configmaps', '-o', 'name']);
        for (let i = 0; i < 4; i++) assert.match(names, new RegExp(`configmap/via-lb-${i}\\b`));
      } finally {
        proxy.kill('SIGKILL');
        await exited;
      }
    },
  );

  test('the controllers run in exactly one server; SIGKILL it and the other takes over within the lease duration', { timeout: 60_000 }, async () => {
    const holder = async () => {
      const res = await (a.child.exitCode === null && a.child.signalCode === null ? apiA : apiB).request(
        'GET',
        '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/conductor-server-controllers',
      );
      return res.status === 200 ? ((res.json() as Lease).spec?.holderIdentity ?? '') : '';
    };
    const byPid = (identity: string) => (identity.includes(`-${a.child.pid}-`) ? a : identity.includes(`-${b.child.pid}-`) ? b : undefined);
    const leader = await eventually(async () => byPid(await holder()), 'one of the two servers to hold the controllers lease', 20_000, 200);
    const other = leader === a ? b : a;
    const leading = (s: ServerProcess) => s.stderr().includes('leading: starting the controllers');
    assert.equal(leading(leader), true, 'the lease holder runs the controllers');
    assert.equal(leading(other), false, 'the other server stands by');

    await leader.kill();
    // The lease expires LEASE_SECONDS after the last renewal; the bound adds a retry period
    // and slack for a loaded machine (not a speed check).
    await eventually(async () => byPid(await holder()) === other, 'the other server to take the lease', (LEASE_SECONDS + 16) * 1000, 100);
    await eventually(() => leading(other), 'the other server to start the controllers', 10_000, 100);
    // The survivor still serves everything.
    await kubectlOk(other, ['get', 'configmap', 'from-a']);
  });
});
