import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExternalClient } from '../../spi.js';
import { proxyEngine } from './engines.js';
import type { LocalListener } from './kinds.js';
import { listenerKind } from './listener-kind.js';
import { accepts, Listeners } from './listeners.js';
import { httpGet, startBackend, type TestBackend } from './testing.js';

const lb = (spec: LocalListener['spec']): LocalListener => ({
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
    client = await listenerKind({ kind: 'LocalPortForwarder', listeners }).connector.connect(lb({}), {});
  });
  after(async () => {
    await listeners.stopAll();
    for (const b of backends) await b.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('observe, create, drift, update, scrub and delete', async () => {
    const bound = lb({
      protocol: 'HTTP',
      targets: [{ address: backends[0]!.address }, { claimRef: { kind: 'RedisCluster', namespace: 'app', name: 'cache' } }],
      claimRef: { namespace: 'app', name: 'web', uid: 'u1' },
    });
    assert.deepEqual(await client.observe(bound), { exists: false, upToDate: false });

    const created = await client.create(bound);
    assert.equal(created.externalName, 'sys_web');
    const port = Number(created.connectionDetails!.port);
    assert.equal(created.connectionDetails!.url, `http://127.0.0.1:${port}`);
    assert.equal((await httpGet(created.connectionDetails!.url!)).body, 'one');

    const seen = await client.observe(bound);
    assert.equal(seen.upToDate, true);
    assert.deepEqual(seen.atProvider?.backends, [backends[0]!.address]);
    assert.equal((seen.atProvider?.unsupportedTargets as string[]).length, 1, 'the claimRef target is reported unsupported');

    // The targets change: drift, then update reloads.
    const changed = { ...bound, spec: { ...bound.spec, targets: [{ address: backends[1]!.address }] } };
    const drift = await client.observe(changed);
    assert.equal(drift.upToDate, false);
    assert.match(drift.drift!, /another config than the spec/);
    await client.update(changed);
    assert.equal((await client.observe(changed)).upToDate, true);
    assert.equal((await httpGet(created.connectionDetails!.url!)).body, 'two');

    // The process is killed: drift, then update starts it again on the same port.
    process.kill(seen.atProvider!.pid as number, 'SIGKILL');
    const killed = await eventually(async () => {
      const o = await client.observe(changed);
      return o.upToDate ? undefined : o;
    });
    assert.match(killed.drift!, /not running|does not accept/);
    const repaired = await client.update(changed);
    assert.equal(repaired.connectionDetails!.port, String(port));
    assert.equal((await httpGet(created.connectionDetails!.url!)).body, 'two');

    // Recycle: the listener keeps its port and forwards nowhere, also once unbound.
    await client.scrub!(changed);
    const unbound = { ...changed, spec: { ...changed.spec, claimRef: undefined } };
    assert.equal((await client.observe(unbound)).upToDate, true, 'an unbound listener serves no backends');
    assert.equal(await accepts('127.0.0.1', port), true);
    const outcome = await httpGet(created.connectionDetails!.url!).then((r) => r.body, () => 'closed');
    assert.equal(outcome, 'closed');

    await client.delete(unbound);
    assert.deepEqual(await client.observe(unbound), { exists: false, upToDate: false });
    assert.equal(await accepts('127.0.0.1', port), false);
    await client.delete(unbound); // deleting what is gone succeeds
  });

  test('a kind without a supervisor stays registered and says why', async () => {
    const kind = listenerKind({ kind: 'HAProxyLoadBalancer', listeners: undefined, unavailable: 'cannot run /x/haproxy -v' });
    assert.equal(kind.plural, 'haproxyloadbalancers');
    await assert.rejects(kind.connector.connect(lb({}), {}), /HAProxyLoadBalancer is unavailable on this machine: cannot run \/x\/haproxy -v/);
    const verdict = kind.implements[0]!.match(lb({}), { type: 'class', resourceClass: lb({}), template: { apiVersion: 'v', kind: 'k' } });
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
