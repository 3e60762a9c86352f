import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat, symlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KObject } from '../../../machinery/object.js';
import { claimDirectory, hostPathPoolConcreteKind, HostPathPoolClient } from './host-path-pool.js';
import type { HostPathPool } from './kinds.js';
import { fixture } from '../../testing.js';

const claim = (name: string): KObject => ({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'Volume',
  metadata: { namespace: 'team', name, uid: `u-${name}` },
});

describe('HostPathPool on real directories', () => {
  let root: string;
  const client = new HostPathPoolClient();
  const pool = (bound: string[] = [], spec: Record<string, unknown> = {}): HostPathPool =>
    fixture<HostPathPool>({
      apiVersion: 'storage.local.conductor.io/v1alpha1',
      kind: 'HostPathPool',
      metadata: { namespace: 'conductor-system', name: 'vols' },
      spec: { root, ...spec },
      status: { bindings: bound.map((n) => ({ claimRef: { namespace: 'team', name: n }, requests: { storage: '1Gi' } })) },
    });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'hostpath-test-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  test('observe, create and bind refuse a root that does not exist', async () => {
    const missing = pool([], { root: join(root, 'absent') });
    await assert.rejects(client.observe(missing), /root .*absent cannot be used: .*want an existing directory/);
    await assert.rejects(client.create(missing), /want an existing directory/);
    await assert.rejects(client.bindClaim(missing, claim('a')), /want an existing directory/);
  });

  test("bindClaim makes <root>/<namespace>_<name> with the pool's mode and returns path, server and export", async () => {
    const details = await client.bindClaim(pool([], { directoryMode: '0700' }), claim('data'));
    const dir = join(root, 'team_data');
    assert.deepEqual(details, { path: dir, server: 'localhost', export: dir });
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.deepEqual(await client.bindClaim(pool(), claim('data')), details, 'a repeated bind changes nothing');
    assert.equal((await stat(dir)).mode & 0o777, 0o700, 'an existing directory keeps its mode');
  });

  test("observe reports each claim's usage", async () => {
    await writeFile(join(root, 'team_data', 'f.bin'), Buffer.alloc(4096));
    const seen = await client.observe(pool(['data']));
    assert.equal(seen.upToDate, true);
    assert.equal(seen.atProvider?.usedBytes, 4096);
    assert.deepEqual((seen.atProvider?.volumes as unknown[])[0], {
      claim: 'team/data',
      path: join(root, 'team_data'),
      present: true,
      usedBytes: 4096,
      files: 1,
      complete: true,
      requested: '1Gi',
    });
  });

  test('a directory removed by hand is a broken share; bindClaim makes it again, update does not', async () => {
    await rm(join(root, 'team_data'), { recursive: true });
    const seen = await client.observe(pool(['data']));
    assert.equal(seen.upToDate, true, 'the pool itself is fine');
    assert.deepEqual(seen.brokenShares, [{ claim: { namespace: 'team', name: 'data' }, missing: `directory ${join(root, 'team_data')}` }]);
    await client.update(pool(['data']));
    assert.equal((await client.observe(pool(['data']))).brokenShares?.length, 1, "update leaves claims' directories to the claim controller");
    await client.bindClaim(pool(['data']), claim('data'));
    assert.deepEqual((await client.observe(pool(['data']))).brokenShares, []);
    assert.equal((await stat(join(root, 'team_data'))).mode & 0o777, 0o750, 'the default mode');
  });

  test('unbindClaim: Retain keeps the files, Recycle empties the directory, Delete removes it', async () => {
    const dir = join(root, 'team_data');
    await mkdir(join(dir, 'sub'), { recursive: true });
    await writeFile(join(dir, 'sub', 'x'), 'x');
    await writeFile(join(dir, '.hidden'), 'h');
    await client.unbindClaim(pool(), { namespace: 'team', name: 'data' }, 'Retain');
    assert.deepEqual((await readdir(dir)).sort(), ['.hidden', 'sub']);
    await client.unbindClaim(pool(), { namespace: 'team', name: 'data' }, 'Recycle');
    assert.deepEqual(await readdir(dir), []);
    await client.unbindClaim(pool(), { namespace: 'team', name: 'data' }, 'Delete');
    await assert.rejects(stat(dir), /ENOENT/);
    await client.unbindClaim(pool(), { namespace: 'team', name: 'data' }, 'Delete'); // idempotent
  });

  test('Delete of a directory replaced by a symbolic link removes the link, not its target', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'hostpath-outside-'));
    await writeFile(join(outside, 'precious'), 'p');
    await symlink(outside, join(root, 'team_linked'));
    await assert.rejects(client.unbindClaim(pool(), { namespace: 'team', name: 'linked' }, 'Recycle'), /not a directory/);
    await client.unbindClaim(pool(), { namespace: 'team', name: 'linked' }, 'Delete');
    assert.deepEqual(await readdir(outside), ['precious']);
    await rm(outside, { recursive: true });
  });

  test('claimDirectory keeps namespace and name apart', () => {
    assert.notEqual(claimDirectory('/r', 'a-b', 'c'), claimDirectory('/r', 'a', 'b-c'));
    assert.equal(claimDirectory('/r/', 'ns', 'n'), '/r/ns_n');
  });

  test('the kind is Shared and Registered and implements Volume', () => {
    assert.equal(hostPathPoolConcreteKind.sharing, 'Shared');
    assert.equal(hostPathPoolConcreteKind.lifecycle, 'Registered');
    assert.deepEqual(hostPathPoolConcreteKind.implements[0].claimKind, { group: 'storage.conductor.io', kind: 'Volume' });
  });
});
