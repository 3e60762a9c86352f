import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lookUpUser, makeDirectoryUnderRoot, mayTraverse, parsePasswd, resolveRunAs, resolveServerRunAs, serverRootFor } from './run-as.js';

const passwd = [
  'root:x:0:0:root:/root:/bin/bash',
  'postgres:x:101:104::/var/lib/postgresql:/bin/bash',
  'nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin',
  '# comment',
  '',
].join('\n');

describe('resolveRunAs', () => {
  async function withPasswd<T>(text: string, fn: (file: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(join(tmpdir(), 'passwd-'));
    try {
      await writeFile(join(dir, 'passwd'), text);
      return await fn(join(dir, 'passwd'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  test('a non-root Conductor runs servers as itself', async () => {
    assert.equal(await resolveRunAs({ uid: 1000, user: 'postgres' }), undefined);
  });

  const cases = [
    { reason: 'root defaults to postgres', env: {}, text: passwd, want: { name: 'postgres', uid: 101, gid: 104 } },
    { reason: 'root falls back to nobody', env: {}, text: passwd.replace(/^postgres.*$/m, ''), want: { name: 'nobody', uid: 65534, gid: 65534 } },
    { reason: 'the environment names the user', env: { CONDUCTOR_POSTGRES_USER: 'nobody' }, text: passwd, want: { name: 'nobody', uid: 65534, gid: 65534 } },
    {
      reason: 'a numeric uid:gid is taken literally',
      env: { CONDUCTOR_POSTGRES_USER: '2000:3000' },
      text: passwd,
      want: { name: '2000:3000', uid: 2000, gid: 3000 },
    },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const got = await withPasswd(c.text, (passwdFile) => resolveRunAs({ uid: 0, env: c.env, passwdFile }));
      assert.deepEqual(got, c.want);
    });
  }

  test('an unknown or root user is refused with the reason', async () => {
    await withPasswd(passwd, async (passwdFile) => {
      await assert.rejects(resolveRunAs({ uid: 0, user: 'ghost', passwdFile }), /no such user in \/etc\/passwd/);
      await assert.rejects(resolveRunAs({ uid: 0, user: 'root', passwdFile }), /never run as root/);
    });
  });

  test('each engine has its own variable and usual user, and never root', async () => {
    const text = `${passwd}\nmysql:x:102:105::/nonexistent:/bin/false\nredis:x:104:107::/var/lib/redis:/usr/sbin/nologin`;
    await withPasswd(text, async (passwdFile) => {
      assert.equal((await resolveServerRunAs('mariadb', { uid: 0, env: {}, passwdFile }))?.name, 'mysql');
      assert.equal((await resolveServerRunAs('redis', { uid: 0, env: {}, passwdFile }))?.name, 'redis');
      assert.equal((await resolveServerRunAs('nats', { uid: 0, env: {}, passwdFile }))?.name, 'nobody');
      assert.equal((await resolveServerRunAs('redis', { uid: 0, env: { CONDUCTOR_REDIS_USER: 'postgres' }, passwdFile }))?.name, 'postgres');
      await assert.rejects(resolveServerRunAs('mariadb', { uid: 0, env: { CONDUCTOR_MARIADB_USER: '0' }, passwdFile }), /MariaDB .* never run as root/);
      assert.equal(await resolveServerRunAs('mariadb', { uid: 1000, env: {}, passwdFile }), undefined);
    });
    assert.equal(serverRootFor('redis', '/data', undefined), '/data/providers/local/redis');
    assert.match(serverRootFor('redis', '/data', { name: 'redis', uid: 104, gid: 107 }), /^\/var\/tmp\/conductor-redis-[0-9a-f]{12}$/);
  });

  test('parsePasswd and lookUpUser read names, uids and gids', async () => {
    assert.deepEqual([...parsePasswd(passwd).keys()], ['root', 'postgres', 'nobody']);
    assert.deepEqual(await lookUpUser('42'), { name: '42', uid: 42, gid: 42 });
  });
});

describe('mayTraverse', () => {
  const user = { name: 'postgres', uid: 101, gid: 104 };
  const cases = [
    { reason: 'owner with x', mode: 0o700, owner: 101, group: 0, want: true },
    { reason: 'root-only directory', mode: 0o700, owner: 0, group: 0, want: false },
    { reason: 'others may search', mode: 0o711, owner: 0, group: 0, want: true },
    { reason: 'group may search', mode: 0o710, owner: 0, group: 104, want: true },
    { reason: 'owner bits win over others', mode: 0o011, owner: 101, group: 0, want: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(mayTraverse(c.mode, c.owner, c.group, user), c.want));
});

describe('makeDirectoryUnderRoot', () => {
  test('the instance directory is made while another task keeps removing the empty root, as the supervisor does', async () => {
    const base = await mkdtemp(join(tmpdir(), 'conductor-root-race-'));
    try {
      for (let i = 0; i < 300; i++) {
        const root = join(base, `root-${i}`);
        const dir = join(root, 'ns_name');
        let making = true;
        // The supervisor removes an empty root at start-up and after each removal; here another
        // task removes it up to ten times, each as soon as it exists, while the directory is made.
        const remover = (async () => {
          for (let removed = 0; making && removed < 10;) {
            await rmdir(root).then(
              () => removed++,
              () => {},
            );
          }
        })();
        await makeDirectoryUnderRoot(root, dir, 0o700).finally(() => (making = false));
        await remover;
        assert.ok((await stat(dir)).isDirectory(), `attempt ${i}: ${dir} exists`);
      }
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  test('an instance directory that already exists is kept, and a file in the way is an error', async () => {
    const root = await mkdtemp(join(tmpdir(), 'conductor-root-made-'));
    try {
      const dir = join(root, 'ns_name');
      await makeDirectoryUnderRoot(root, dir, 0o700);
      await writeFile(join(dir, 'keep'), 'x');
      await makeDirectoryUnderRoot(root, dir, 0o700);
      assert.equal(await readFile(join(dir, 'keep'), 'utf8'), 'x');
      assert.equal((await stat(dir)).mode & 0o777, 0o700);
      await assert.rejects(makeDirectoryUnderRoot(join(dir, 'keep'), join(dir, 'keep', 'x'), 0o700), /ENOTDIR/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
