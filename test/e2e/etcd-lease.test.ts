/**
 * Two `conductor server`s on one real etcd: the controllers' Lease decides who runs every
 * controller — the core ones (namespace deletion, garbage collection) as well as Conductor's.
 * Work asked through the standing-by server is done by the holder; a holder that is stopped
 * cleanly (SIGTERM) gives the lease up, so the other takes it without waiting for it to expire.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { etcdMissing, startEtcdCluster, type EtcdCluster } from '../support/etcd.js';
import { eventually } from '../support/eventually.js';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

const missing = etcdMissing();
/** A long lease (30 s) so that a takeover before its expiry can only come from a release. */
const LEASE_SECONDS = 30;
const LEASE = ['--leader-elect-lease-duration', String(LEASE_SECONDS), '--leader-elect-renew-deadline', '20', '--leader-elect-retry-period', '1'];
const LEASE_PATH = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/conductor-server-controllers';

interface Lease {
  spec?: { holderIdentity?: string; renewTime?: string; acquireTime?: string; leaseDurationSeconds?: number; leaseTransitions?: number };
}

describe('the controllers lease on two servers over one etcd', { skip: missing }, () => {
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

  const alive = (s: ServerProcess) => s.child.exitCode === null && s.child.signalCode === null;
  const lease = async (): Promise<Lease> => {
    const res = await (alive(a) ? apiA : apiB).request('GET', LEASE_PATH);
    assert.equal(res.status, 200, res.text);
    return res.json() as Lease;
  };
  const byIdentity = (identity: string | undefined) => (identity?.includes(`-${a.child.pid}-`) ? a : identity?.includes(`-${b.child.pid}-`) ? b : undefined);
  const apiOf = (s: ServerProcess) => (s === a ? apiA : apiB);

  let leader: ServerProcess;
  let other: ServerProcess;

  test('one server holds the lease and runs the controllers', async () => {
    leader = await eventually(async () => byIdentity((await lease()).spec?.holderIdentity), 'one of the two servers to hold the lease', 20_000, 200);
    other = leader === a ? b : a;
    await eventually(() => leader.stderr().includes('leading: starting the controllers'), 'the holder to start the controllers', 10_000, 100);
    assert.equal(other.stderr().includes('leading: starting the controllers'), false, 'the other server stands by');
  });

  test('a namespace deleted through the standing-by server is emptied and finalized by the holder', async () => {
    const api = apiOf(other);
    assert.equal((await api.request('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } })).status, 201);
    const cm = await api.request('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'inside' } });
    assert.equal(cm.status, 201, cm.text);
    const del = await api.request('DELETE', '/api/v1/namespaces/doomed');
    assert.ok(del.status === 200 || del.status === 202, del.text);
    await eventually(async () => (await api.request('GET', '/api/v1/namespaces/doomed')).status === 404, 'the namespace to be gone', 30_000, 200);
    // The holder logs after its write; the namespace can be gone (read through the other server)
    // before the holder's line has reached this process through its stderr pipe.
    await eventually(
      () => /"namespace":"doomed"[^\n]*namespace emptied and finalized/.test(leader.stderr()),
      'the holder to log the namespace finalized',
      10_000,
      100,
    );
    assert.doesNotMatch(other.stderr(), /namespace emptied and finalized/, 'only the holder finalizes namespaces');
  });

  test('an object owned by one deleted through the standing-by server is garbage collected', async () => {
    const api = apiOf(other);
    const owner = await api.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owner' } });
    assert.equal(owner.status, 201, owner.text);
    const uid = owner.json().metadata.uid as string;
    const dependent = await api.request('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid }] },
    });
    assert.equal(dependent.status, 201, dependent.text);
    assert.equal((await api.request('DELETE', '/api/v1/namespaces/default/configmaps/owner')).status, 200);
    await eventually(
      async () => (await api.request('GET', '/api/v1/namespaces/default/configmaps/dependent')).status === 404,
      'the dependent to be collected',
      30_000,
      200,
    );
  });

  test('SIGTERM the holder: it gives the lease up and the other takes it long before the lease would expire', { timeout: 60_000 }, async () => {
    const before = (await lease()).spec ?? {};
    assert.equal(byIdentity(before.holderIdentity), leader);
    const lastRenew = Date.parse(before.renewTime ?? '');
    assert.ok(!Number.isNaN(lastRenew), JSON.stringify(before));
    const code = await leader.stop();
    assert.equal(code, 0, leader.stderr().slice(-2000));
    assert.match(leader.stderr(), /released the lease/);
    // The bound is on the wait, not the assertion: what proves the release is the new acquireTime.
    const taken = await eventually(
      async () => {
        const spec = (await lease()).spec;
        return byIdentity(spec?.holderIdentity) === other ? spec : undefined;
      },
      'the other server to take the lease',
      (LEASE_SECONDS + 10) * 1000,
      100,
    );
    const acquired = Date.parse(taken.acquireTime ?? '');
    assert.ok(
      acquired < lastRenew + LEASE_SECONDS * 1000,
      `taken at ${taken.acquireTime}, before the old holder's lease (renewed ${before.renewTime}, ${LEASE_SECONDS} s) would have expired`,
    );
    assert.equal(taken.leaseTransitions, (before.leaseTransitions ?? 0) + 1);
    await eventually(() => other.stderr().includes('leading: starting the controllers'), 'the survivor to start the controllers', 10_000, 100);
    // And the survivor's controllers act: a namespace is finalized.
    const api = apiOf(other);
    assert.equal((await api.request('POST', '/api/v1/namespaces', { metadata: { name: 'after-handover' } })).status, 201);
    await api.request('DELETE', '/api/v1/namespaces/after-handover');
    await eventually(async () => (await api.request('GET', '/api/v1/namespaces/after-handover')).status === 404, 'the namespace to be gone', 30_000, 200);
  });
});
