/**
 * Faults during a write burst, on the HA recipe: a 3-member etcd cluster and two
 * `conductor server`s on it. A writer creates ConfigMaps (and some claims on the memory
 * provider) spread over both servers and records every acknowledged write (a 201); mid-burst one
 * etcd member is SIGKILLed (the burst goes on), then the server holding the controllers' Lease is
 * SIGKILLed (the other takes over: claims keep binding, no resource made twice). Then everything
 * is started again, and every acknowledged write is present and a watch resumed from the
 * revision before the burst sees each of them exactly once, in order.
 *
 * Bounded: BURST_WRITES ConfigMaps (CONDUCTOR_ETCD_BURST_WRITES, default 240) and CLAIMS claims
 * (CONDUCTOR_ETCD_BURST_CLAIMS, default 6); a failed write is retried on the other server at most
 * 20 times. `node scripts/etcd-faults.mjs` repeats it with a longer burst.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { etcdMissing, startEtcdCluster, type EtcdCluster } from '../support/etcd.js';
import { eventually } from '../support/eventually.js';
import { apiFromKubeconfig, type ApiHandle, type RawResponse } from '../support/api.js';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

const missing = etcdMissing();
const LEASE_SECONDS = 4;
const LEASE = ['--leader-elect-lease-duration', String(LEASE_SECONDS), '--leader-elect-renew-deadline', '3', '--leader-elect-retry-period', '1'];
const LEASE_PATH = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/conductor-server-controllers';
const BURST_WRITES = Number(process.env.CONDUCTOR_ETCD_BURST_WRITES ?? 240);
/** Bounds grow with a longer burst (scripts/etcd-faults.mjs runs longer ones). */
const SCALE = Math.max(1, BURST_WRITES / 240);
const CLAIMS = Number(process.env.CONDUCTOR_ETCD_BURST_CLAIMS ?? 6);
const WRITERS = 8;
const NS = 'burst';
const SYS = 'conductor-system';
const CM_PATH = `/api/v1/namespaces/${NS}/configmaps`;
const CLAIM_PATH = `/apis/storage.conductor.io/v1alpha1/namespaces/${NS}/postgresqlinstances`;
const DB_PATH = `/apis/database.memory.conductor.io/v1alpha1/namespaces/${SYS}/memorydatabases`;

/** One Conductor server of the pair, restartable on its data dir. */
interface Member {
  name: string;
  dataDir: string;
  server: ServerProcess;
  api: ApiHandle;
}

const alive = (m: Member) => m.server.child.exitCode === null && m.server.child.signalCode === null;

describe('faults during a write burst: 3 etcd members, two servers', { skip: missing }, () => {
  let etcd: EtcdCluster;
  const members: Member[] = [];
  const dirs: string[] = [];
  let args: string[];

  const start = async (name: string, dataDir: string): Promise<Member> => {
    const server = await startServer({ dataDir, args });
    return { name, dataDir, server, api: apiFromKubeconfig(server.kubeconfig) };
  };
  const restart = async (m: Member) => {
    m.api.close();
    const again = await start(m.name, m.dataDir);
    m.server = again.server;
    m.api = again.api;
  };
  const anyAlive = () => members.find(alive)!;

  before(async () => {
    etcd = await startEtcdCluster(3);
    args = ['--etcd-servers', etcd.endpoints.join(','), '--log-level', 'info', ...LEASE];
    const a = await start('a', tempDir());
    dirs.push(a.dataDir);
    const root = tempDir();
    dirs.push(root);
    const dataDirB = join(root, 'data');
    cpSync(a.dataDir, dataDirB, { recursive: true });
    members.push(a, await start('b', dataDirB));
  });
  after(async () => {
    for (const m of members) {
      m.api.close();
      await m.server.kill();
    }
    for (const d of dirs) removeDir(d);
    await etcd?.stop();
  });

  test('every acknowledged write survives an etcd member and the lease holder killed mid-burst', { timeout: 150_000 * SCALE }, async () => {
    const a = members[0];
    await kubectlOk(a.server, ['create', 'namespace', NS]);
    await eventually(async () => (await a.api.request('GET', `/api/v1/namespaces/${SYS}`)).status === 200, `the controllers to make ${SYS}`, 30_000, 200);
    await kubectlOk(a.server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: memory, namespace: ${SYS}, annotations: {conductor.io/is-default-class: "true"}}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
template: {apiVersion: database.memory.conductor.io/v1alpha1, kind: MemoryDatabase, spec: {}}
`,
    });
    const listed = await a.api.request('GET', CM_PATH);
    assert.equal(listed.status, 200, listed.text);
    const startRv = listed.json().metadata.resourceVersion as string;

    // The burst: WRITERS workers take the next index; each write goes to a server by index and,
    // when it fails (503, connection refused or cut), to the other one, until it is answered.
    const acked = new Map<string, string>(); // name → resourceVersion of the 201
    const retried = { count: 0, statuses: new Map<string, number>() };
    let next = 0;
    const ackedAt = { etcdKill: 0, holderKill: 0 };
    const write = async (path: string, body: { metadata: { name: string } }, first: number): Promise<RawResponse | undefined> => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const target = members[(first + attempt) % 2];
        let res: RawResponse | undefined;
        try {
          if (alive(target)) res = await target.api.request('POST', path, body);
        } catch {
          res = undefined;
        }
        if (res && (res.status === 201 || res.status === 409)) return res;
        const why = res ? String(res.status) : 'no answer';
        retried.count++;
        retried.statuses.set(why, (retried.statuses.get(why) ?? 0) + 1);
        if (res && res.status !== 503 && res.status !== 500 && res.status !== 504) assert.fail(`${body.metadata.name}: ${res.status} ${res.text}`);
        await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
      }
      return undefined;
    };
    const claimAt = new Set(Array.from({ length: CLAIMS }, (_, i) => Math.floor(((i + 0.5) * BURST_WRITES) / CLAIMS)));
    const claims: string[] = [];
    const worker = async () => {
      for (let i = next++; i < BURST_WRITES; i = next++) {
        const name = `cm-${String(i).padStart(5, '0')}`;
        const res = await write(CM_PATH, { metadata: { name }, data: { i: String(i) } } as never, i);
        if (res?.status === 201) acked.set(name, res.json().metadata.resourceVersion as string);
        if (claimAt.has(i)) {
          const claim = `claim-${i}`;
          const c = await write(
            CLAIM_PATH,
            { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'PostgreSQLInstance', metadata: { name: claim }, spec: {} } as never,
            i,
          );
          if (c) claims.push(claim);
        }
      }
    };
    const faults = (async () => {
      await eventually(() => acked.size >= BURST_WRITES / 3, 'a third of the burst acknowledged', 60_000 * SCALE, 20);
      await etcd.members[2].kill();
      ackedAt.etcdKill = acked.size;
      const holder = await eventually(
        async () => {
          const res = await anyAlive().api.request('GET', LEASE_PATH);
          const id = res.status === 200 ? ((res.json().spec?.holderIdentity as string | undefined) ?? '') : '';
          return members.find((m) => id.includes(`-${m.server.child.pid}-`));
        },
        'a lease holder',
        20_000,
        100,
      );
      await eventually(() => acked.size >= (2 * BURST_WRITES) / 3, 'two thirds of the burst acknowledged', 60_000 * SCALE, 20);
      await holder.server.kill();
      ackedAt.holderKill = acked.size;
      return holder;
    })();
    await Promise.all([...Array.from({ length: WRITERS }, worker), faults]);
    const killed = await faults;
    const survivor = members.find((m) => m !== killed)!;
    const report = `acknowledged ${acked.size} of ${BURST_WRITES}, ${ackedAt.etcdKill} before the etcd member was killed and ${ackedAt.holderKill} before the lease holder; retries ${JSON.stringify([...retried.statuses])}`;
    assert.ok(acked.size > ackedAt.holderKill && ackedAt.holderKill > ackedAt.etcdKill, `the burst went on after each fault: ${report}`);
    assert.ok(acked.size > BURST_WRITES / 2, `most writes acknowledged: ${report}`);
    console.log(report);

    // The survivor takes the lease and its controllers bind every claim, each to one resource.
    await eventually(
      async () => {
        const res = await survivor.api.request('GET', LEASE_PATH);
        return res.status === 200 && String(res.json().spec?.holderIdentity).includes(`-${survivor.server.child.pid}-`);
      },
      'the survivor to hold the lease',
      (LEASE_SECONDS + 16) * 1000,
      100,
    );
    const boundTo = async () => {
      const res = await survivor.api.request('GET', CLAIM_PATH);
      assert.equal(res.status, 200, res.text);
      return (
        res.json().items as { metadata: { name: string }; status?: { resourceRef?: { name: string }; conditions?: { type: string; status: string }[] } }[]
      )
        .filter((c) => c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True'))
        .map((c) => c.status!.resourceRef!.name);
    };
    const resources = await eventually(
      async () => {
        const refs = await boundTo();
        return refs.length === claims.length ? refs : undefined;
      },
      `all ${claims.length} claims Ready`,
      60_000,
      250,
    );
    const dbs = await survivor.api.request('GET', DB_PATH);
    const dbNames = (dbs.json().items as { metadata: { name: string } }[]).map((d) => d.metadata.name).sort();
    assert.deepEqual(dbNames, [...resources].sort(), 'one MemoryDatabase per claim, none made twice');

    // Restart everything: the etcd member, the killed server, and the survivor (SIGTERM).
    etcd.members[2].restart();
    await restart(killed);
    assert.equal(await survivor.server.stop(), 0, survivor.server.stderr().slice(-2000));
    await restart(survivor);

    for (const m of members) {
      const res = await eventually(
        async () => {
          const r = await m.api.request('GET', CM_PATH);
          return r.status === 200 ? r : undefined;
        },
        `server ${m.name} to list`,
        30_000,
        200,
      );
      const present = new Map(
        (res.json().items as { metadata: { name: string; resourceVersion: string } }[]).map((i) => [i.metadata.name, i.metadata.resourceVersion]),
      );
      const lost = [...acked.keys()].filter((n) => !present.has(n));
      assert.deepEqual(lost, [], `acknowledged writes missing on ${m.name}`);
      for (const [name, rv] of acked) assert.equal(present.get(name), rv, `${name} unchanged since its 201`);
    }

    // A watch resumed from the revision before the burst: every acknowledged create once, in order.
    const watch = members[0].api.watch(`${CM_PATH}?watch=1&resourceVersion=${startRv}`);
    try {
      await watch.until((events) => [...acked.keys()].every((n) => events.some((e) => e.object?.metadata?.name === n)), 30_000 * SCALE);
      const added = watch.events.filter((e) => e.type === 'ADDED');
      assert.ok(!watch.events.some((e) => e.type === 'ERROR'), JSON.stringify(watch.events.find((e) => e.type === 'ERROR')));
      const names = added.map((e) => e.object.metadata.name as string);
      assert.equal(new Set(names).size, names.length, 'no object added twice');
      const rvs = watch.events.map((e) => Number(e.object.metadata.resourceVersion));
      assert.ok(
        rvs.every((rv, i) => i === 0 || rv > rvs[i - 1]),
        'revisions strictly increase (no duplicate, no reordering)',
      );
      for (const [name, rv] of acked)
        assert.ok(
          added.some((e) => e.object.metadata.name === name && e.object.metadata.resourceVersion === rv),
          `${name} seen at ${rv}`,
        );
    } finally {
      watch.stop();
    }
  });
});
