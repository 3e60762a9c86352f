/**
 * LoadBalancer claims end to end on real listeners: two HTTP backends in the test, a
 * "bronze" class (LocalPortForwarder, Conductor's own proxy process) and a "silver" class
 * (HAProxyLoadBalancer, a haproxy process). Claims bind, the Secret's url reaches the
 * backends round-robin, a killed listener is restarted on the same port, a Conductor crash
 * leaves the listeners running and the new Conductor adopts them, target changes are
 * reloaded, and Delete / Retain / Recycle act on the real listeners.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { instanceRoots, killLeftovers } from '../support/leftovers.js';
import { httpGet, startBackend, type TestBackend } from '../../src/providers/local/loadbalancer/testing.js';
import { accepts } from '../../src/providers/local/loadbalancer/listeners.js';

const SYS = 'conductor-system';
const LB_GROUP = '/apis/network.local.conductor.io/v1alpha1';
const claimPath = (name = '') => `/apis/network.conductor.io/v1alpha1/namespaces/app/loadbalancers${name ? `/${name}` : ''}`;
const resourcePath = (plural: string, name: string) => `${LB_GROUP}/namespaces/${SYS}/${plural}/${name}`;

describe('LoadBalancer claims on real listeners', () => {
  let server: ServerProcess;
  let api: ApiHandle;
  let backends: TestBackend[];
  const dataDir = tempDir();

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const get = async (path: string) => (await api.request('GET', path)).json();
  const boundAndReady = (name: string) =>
    eventually(
      async () => {
        const c = await get(claimPath(name));
        return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `claim app/${name} Bound and Ready`,
      30_000,
    );
  const secretOf = async (name: string) => {
    const s = await get(`/api/v1/namespaces/app/secrets/${name}`);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  /** The distinct answers of `times` requests, each on a fresh connection. */
  const answers = async (url: string, times: number) => {
    const seen = new Set<string>();
    for (let i = 0; i < times; i++) seen.add((await httpGet(url)).body);
    return [...seen].sort();
  };
  const claim = (name: string, extra: string, targets: TestBackend[]) => `apiVersion: network.conductor.io/v1alpha1
kind: LoadBalancer
metadata: {name: ${name}, namespace: app}
spec:
  protocol: HTTP
  targets: [${targets.map((b) => `{address: "${b.address}"}`).join(', ')}]
${extra}`;
  const start = async () => {
    server = await startServer({
      dataDir,
      env: { CONDUCTOR_POLL_INTERVAL_MS: '1000' },
      ...(process.env.LB_E2E_DEBUG ? { args: ['--log-level', 'info'] } : {}),
    });
    api = apiFromKubeconfig(server.kubeconfig);
  };

  before(async () => {
    backends = [await startBackend('one'), await startBackend('two')];
    await start();
    await kubectlOk(server, [
      'wait',
      '--for=condition=Established',
      'crd/loadbalancers.network.conductor.io',
      'crd/haproxyloadbalancers.network.local.conductor.io',
      '--timeout=30s',
    ]);
    await kubectlOk(server, ['create', 'namespace', 'app']);
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
---
apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: bronze, namespace: ${SYS}}
resourceClass: bronze
supportedResources: [LoadBalancer.v1alpha1.network.conductor.io]
rebindPolicy: Delete
providerRef: {name: local}
template:
  apiVersion: network.local.conductor.io/v1alpha1
  kind: LocalPortForwarder
  spec: {}
---
apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: silver, namespace: ${SYS}}
resourceClass: silver
supportedResources: [LoadBalancer.v1alpha1.network.conductor.io]
rebindPolicy: Delete
providerRef: {name: local}
template:
  apiVersion: network.local.conductor.io/v1alpha1
  kind: HAProxyLoadBalancer
  spec: {}
`);
  });
  after(async () => {
    api?.close();
    await server?.stop();
    if (process.env.LB_E2E_DEBUG) (await import('node:fs')).writeFileSync('/tmp/lb-e2e-server.log', server?.stderr() ?? '');
    // Listeners outlive a killed Conductor by design: make sure none outlives the test.
    killLeftovers(dataDir, 'loadbalancer/proxy', 'listener.pid');
    killLeftovers(dataDir, 'loadbalancer/haproxy', 'listener.pid');
    for (const engine of ['proxy', 'haproxy']) removeDir(instanceRoots(dataDir, `loadbalancer/${engine}`)[1]);
    removeDir(dataDir);
    for (const b of backends ?? []) await b.close();
  });

  const tiers = [
    { tier: 'bronze', kind: 'LocalPortForwarder', plural: 'localportforwarders' },
    { tier: 'silver', kind: 'HAProxyLoadBalancer', plural: 'haproxyloadbalancers' },
  ];

  test("a claim of each tier binds and its Secret's url reaches both backends round-robin", async () => {
    for (const { tier } of tiers) await apply(claim(`web-${tier}`, `  resourceClass: ${tier}\n  ports: [8080]\n`, backends));
    for (const { tier, kind } of tiers) {
      const c = await boundAndReady(`web-${tier}`);
      assert.equal(c.status.resourceRef.kind, kind);
      const details = await secretOf(`web-${tier}`);
      assert.deepEqual(Object.keys(details).sort(), ['address', 'port', 'url']);
      assert.equal(details.address, '127.0.0.1');
      assert.equal(details.url, `http://127.0.0.1:${details.port}`);
      assert.deepEqual(await answers(details.url, 4), ['one', 'two'], `${tier} balances over both backends`);
    }
  });

  test(
    'as root, neither listener runs as root: its process, directory and config belong to an unprivileged user',
    { skip: process.getuid?.() !== 0 && 'Conductor is not root here' },
    async () => {
      for (const engine of ['proxy', 'haproxy']) {
        const [underData, root] = instanceRoots(dataDir, `loadbalancer/${engine}`);
        assert.equal(existsSync(underData) && readdirSync(underData).length > 0, false, `no ${engine} listener under the private data dir`);
        const dirs = readdirSync(root);
        assert.ok(dirs.length > 0, `${engine} listeners live in ${root}`);
        assert.equal(statSync(root).mode & 0o777, 0o711, `${root} is searchable only`);
        for (const d of dirs) {
          const dir = join(root, d);
          assert.equal(statSync(dir).mode & 0o777, 0o711);
          const pid = Number(readFileSync(join(dir, 'listener.pid'), 'utf8').trim());
          const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
          assert.notEqual(uid, 0, `${engine} listener ${pid} does not run as root`);
          const config = statSync(join(dir, engine === 'haproxy' ? 'haproxy.cfg' : 'proxy.json'));
          assert.equal(config.uid, uid, "the config is the listener user's");
          assert.equal(config.mode & 0o777, 0o600);
        }
      }
    },
  );

  test('a killed listener process is drift: it is started again on the same port', async () => {
    for (const { tier, plural } of tiers) {
      const c = await get(claimPath(`web-${tier}`));
      const before = await get(resourcePath(plural, c.status.resourceRef.name));
      const pid = before.status.atProvider.pid as number;
      const details = await secretOf(`web-${tier}`);
      process.kill(pid, 'SIGKILL');
      const after = await eventually(
        async () => {
          const r = await get(resourcePath(plural, c.status.resourceRef.name));
          const p = r.status?.atProvider?.pid;
          return typeof p === 'number' && p !== pid && r.status.atProvider.running === true ? r : undefined;
        },
        `${tier}: a new listener process`,
        30_000,
      );
      assert.equal(String(after.status.atProvider.port), details.port, 'the port is kept');
      assert.deepEqual(await eventually(async () => await answers(details.url, 4).catch(() => undefined), `${tier} answers again`, 10_000), ['one', 'two']);
    }
  });

  test('listeners survive a Conductor crash and the restarted Conductor adopts them', async () => {
    const pids: Record<string, number> = {};
    const urls: Record<string, string> = {};
    for (const { tier, plural } of tiers) {
      const c = await get(claimPath(`web-${tier}`));
      pids[tier] = (await get(resourcePath(plural, c.status.resourceRef.name))).status.atProvider.pid;
      urls[tier] = (await secretOf(`web-${tier}`)).url!;
    }
    await server.kill();
    if (process.env.LB_E2E_DEBUG) (await import('node:fs')).writeFileSync('/tmp/lb-e2e-server1.log', server.stderr());
    api.close();
    for (const { tier } of tiers) assert.deepEqual(await answers(urls[tier], 4), ['one', 'two'], `${tier} serves while Conductor is down`);
    await start();
    for (const { tier, plural } of tiers) {
      const c = await get(claimPath(`web-${tier}`));
      const details = await secretOf(`web-${tier}`);
      assert.deepEqual(await answers(details.url, 4), ['one', 'two'], `${tier} kept serving`);
      // The new Conductor observes the same process (adopted, not restarted).
      await eventually(
        async () => {
          const r = await get(resourcePath(plural, c.status.resourceRef.name));
          return r.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? r : undefined;
        },
        `${tier} Ready after the restart`,
        30_000,
      );
      const r = await get(resourcePath(plural, c.status.resourceRef.name));
      assert.equal(r.status.atProvider.pid, pids[tier], `${tier}: the same process`);
    }
  });

  test('changed targets are written and reloaded into the running haproxy', async () => {
    const c = await get(claimPath('web-silver'));
    const name = c.status.resourceRef.name;
    const pid = (await get(resourcePath('haproxyloadbalancers', name))).status.atProvider.pid;
    await kubectlOk(server, [
      'patch',
      'haproxyloadbalancer',
      name,
      '-n',
      SYS,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { targets: [{ address: backends[0].address }] } }),
    ]);
    const details = await secretOf('web-silver');
    await eventually(
      async () => {
        const seen = await answers(details.url, 4);
        return seen.join() === 'one' ? seen : undefined;
      },
      'haproxy to send everything to backend one',
      30_000,
    );
    assert.equal((await get(resourcePath('haproxyloadbalancers', name))).status.atProvider.pid, pid, 'reloaded, not restarted');
  });

  test('Delete: deleting a claim removes its listener and closes the port', async () => {
    for (const { tier, plural } of tiers) {
      const c = await get(claimPath(`web-${tier}`));
      const port = Number((await secretOf(`web-${tier}`)).port);
      await kubectlOk(server, ['delete', 'loadbalancer', `web-${tier}`, '-n', 'app', '--timeout=60s']);
      await eventually(
        async () => ((await api.request('GET', resourcePath(plural, c.status.resourceRef.name))).status === 404 ? true : undefined),
        `${tier} resource deleted`,
        30_000,
      );
      await eventually(async () => !(await accepts('127.0.0.1', port)), `${tier} port ${port} closed`, 10_000);
    }
  });

  test('Retain keeps a released listener forwarding; Recycle resets its targets and makes it Available', async () => {
    const staticLb = (kind: string, name: string, policy: string) => `apiVersion: network.local.conductor.io/v1alpha1
kind: ${kind}
metadata: {name: ${name}, namespace: ${SYS}}
spec:
  protocol: HTTP
  rebindPolicy: ${policy}
  providerRef: {name: local}
  targets: [{address: "${backends[1].address}"}]
`;
    await apply(staticLb('LocalPortForwarder', 'kept', 'Retain') + '---\n' + staticLb('HAProxyLoadBalancer', 'recycled', 'Recycle'));
    await apply(claim('uses-kept', '  resourceName: kept\n', [backends[1]]) + '---\n' + claim('uses-recycled', '  resourceName: recycled\n', [backends[1]]));
    const urls: Record<string, string> = {};
    for (const name of ['uses-kept', 'uses-recycled']) {
      await boundAndReady(name);
      urls[name] = (await secretOf(name)).url!;
      // A listener bound after it became Ready starts forwarding on the managed reconciler's
      // next pass (the claim controller does not compare the Ready condition's generation).
      await eventually(async () => (await answers(urls[name], 2).catch(() => undefined))?.join() === 'two', `${name} forwards to backend two`, 15_000);
    }
    await kubectlOk(server, ['delete', 'loadbalancer', 'uses-kept', 'uses-recycled', '-n', 'app', '--timeout=60s']);

    const kept = await eventually(
      async () => {
        const r = await get(resourcePath('localportforwarders', 'kept'));
        return r.status?.phase === 'Released' ? r : undefined;
      },
      'kept Released',
      30_000,
    );
    assert.ok(kept.spec.claimRef, 'Retain keeps the claimRef');
    assert.deepEqual(await answers(urls['uses-kept'], 2), ['two'], 'a retained listener keeps forwarding');

    await eventually(
      async () => {
        const r = await get(resourcePath('haproxyloadbalancers', 'recycled'));
        return r.status?.phase === 'Available' && !r.spec.claimRef ? r : undefined;
      },
      'recycled Available',
      30_000,
    );
    const port = Number(new URL(urls['uses-recycled']).port);
    assert.equal(await accepts('127.0.0.1', port), true, 'the recycled listener keeps its port');
    const res = await httpGet(urls['uses-recycled']);
    assert.equal(res.status, 503, 'and forwards nowhere (haproxy: no server available)');
  });
});
