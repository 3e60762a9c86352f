import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExternalClient } from '../../spi.js';
import { proxyEngine } from './engines.js';
import type { LocalListener } from './kinds.js';
import { listenerConcreteKind } from './listener-kind.js';
import { accepts, Listeners } from './listeners.js';
import { httpGet, startBackend, type TestBackend } from './testing.js';
import { fixture } from '../../testing.js';

const lb = (spec: Record<string, unknown>): LocalListener =>
  fixture<LocalListener>({
    apiVersion: 'network.local.conductor.io/v1alpha1',
    kind: 'LocalPortForwarder',
    metadata: { name: 'web', namespace: 'sys' },
    spec,
  });

describe('LocalPortForwarder external client', () => {
  let root: string;
  let backends: TestBackend[];
  let listeners: Listeners;
  let client: ExternalClient<LocalListener>;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'conductor-lpf-'));
    backends = [await startBackend('one'), await startBackend('two')];
    listeners = new Listeners({ root, engine: proxyEngine() });
    client = await listenerConcreteKind({ kind: 'LocalPortForwarder', listeners }).connector.connect(lb({}), {});
  });
  after(async () => {
    await listeners.stopAll();
    for (const b of backends) await b.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('observe, create, drift, update, scrub and delete', async () => {
    const bound = lb({
      protocol: 'HTTP',
      targets: [{ address: backends[0].address }, { claimRef: { kind: 'RedisCluster', namespace: 'app', name: 'cache' } }],
      claimRef: { namespace: 'app', name: 'web', uid: 'u1' },
    });
    assert.deepEqual(await client.observe(bound), { exists: false, upToDate: false });

    const created = await client.create(bound);
    assert.equal(created.externalName, 'sys_web');
    const port = Number(created.connectionDetails!.port);
    assert.equal(created.connectionDetails!.url, `http://127.0.0.1:${port}`);
    assert.equal((await httpGet(created.connectionDetails!.url)).body, 'one');

    const seen = await client.observe(bound);
    assert.equal(seen.upToDate, true);
    assert.deepEqual(seen.atProvider?.backends, [backends[0].address]);
    assert.equal((seen.atProvider?.unsupportedTargets as string[]).length, 1, 'the claimRef target is reported unsupported');

    // The targets change: drift, then update reloads.
    const changed = { ...bound, spec: { ...bound.spec, targets: [{ address: backends[1].address }] } };
    const drift = await client.observe(changed);
    assert.equal(drift.upToDate, false);
    assert.match(drift.drift!, /another config than the spec/);
    await client.update(changed);
    assert.equal((await client.observe(changed)).upToDate, true);
    assert.equal((await httpGet(created.connectionDetails!.url)).body, 'two');

    // The process is killed: drift, then update starts it again on the same port.
    process.kill(seen.atProvider.pid as number, 'SIGKILL');
    const killed = await eventually(async () => {
      const o = await client.observe(changed);
      return o.upToDate ? undefined : o;
    });
    assert.match(killed.drift!, /not running|does not accept/);
    const repaired = await client.update(changed);
    assert.equal(repaired.connectionDetails!.port, String(port));
    assert.equal((await httpGet(created.connectionDetails!.url)).body, 'two');

    // Recycle: the listener keeps its port and forwards nowhere, also once unbound.
    await client.scrub!(changed);
    const unbound = { ...changed, spec: { ...changed.spec, claimRef: undefined } };
    assert.equal((await client.observe(unbound)).upToDate, true, 'an unbound listener serves no backends');
    assert.equal(await accepts('127.0.0.1', port), true);
    const outcome = await httpGet(created.connectionDetails!.url).then(
      (r) => r.body,
      () => 'closed',
    );
    assert.equal(outcome, 'closed');

    await client.delete(unbound);
    assert.deepEqual(await client.observe(unbound), { exists: false, upToDate: false });
    assert.equal(await accepts('127.0.0.1', port), false);
    await client.delete(unbound); // deleting what is gone succeeds
  });

  // Issue 10 item 2: an admin writes a target straight into a concrete resource (no claim
  // schema in between): the provider refuses it before writing any file.
  for (const address of [
    'unix@/var/run/mysqld/mysqld.sock#:3306',
    '169.254.169.254:80',
    '[fd00:ec2::254]:80',
    '[::ffff:a9fe:a9fe]:80',
    'metadata.google.internal:80',
  ]) {
    test(`a target ${address} written into the resource is refused and no config is written`, async () => {
      const hostile: LocalListener = {
        ...lb({ targets: [{ address }], claimRef: { namespace: 'app', name: 'web', uid: 'u1' } }),
        metadata: { name: 'hostile', namespace: 'sys' },
      };
      await assert.rejects(client.create(hostile), /refusing to configure the listener: spec\.targets\[0\]\.address/);
      assert.equal(existsSync(join(root, 'sys_hostile')), false, 'no listener directory, config or process');
      // On an existing listener, the same target is drift that update refuses; the old config stays.
      const ok = { ...hostile, spec: { ...hostile.spec, targets: [{ address: backends[0].address }] } };
      await client.create(ok);
      const config = join(root, 'sys_hostile', 'proxy.json');
      const before = readFileSync(config, 'utf8');
      const drift = await client.observe(hostile);
      assert.equal(drift.upToDate, false);
      assert.match(drift.drift!, /targets the listener refuses/);
      await assert.rejects(client.update(hostile), /refusing to configure the listener/);
      assert.equal(readFileSync(config, 'utf8'), before);
      await client.delete(ok);
    });
  }

  test('allowLinkLocalTargets lets an admin name a link-local target', async () => {
    const allowed: LocalListener = {
      ...lb({ targets: [{ address: '169.254.1.1:9' }], claimRef: { namespace: 'app', name: 'web', uid: 'u1' }, allowLinkLocalTargets: true }),
      metadata: { name: 'allowed', namespace: 'sys' },
    };
    await client.create(allowed);
    assert.match(readFileSync(join(root, 'sys_allowed', 'proxy.json'), 'utf8'), /169\.254\.1\.1/);
    await client.delete(allowed);
  });

  test('a kind without a supervisor stays registered and says why', async () => {
    const kind = listenerConcreteKind({ kind: 'HAProxyLoadBalancer', listeners: undefined, unavailable: 'cannot run /x/haproxy -v' });
    assert.equal(kind.plural, 'haproxyloadbalancers');
    await assert.rejects(kind.connector.connect(lb({}), {}), /HAProxyLoadBalancer is unavailable on this machine: cannot run \/x\/haproxy -v/);
    const verdict = kind.implements[0].match(lb({}), { type: 'class', resourceClass: lb({}), template: { apiVersion: 'v', kind: 'k' } });
    assert.equal(verdict.fits, false);
  });
});

async function eventually<T>(fn: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
