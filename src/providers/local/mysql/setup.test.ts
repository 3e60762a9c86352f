import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveMariaDbBinaries } from './binaries.js';
import { createMySqlKinds, mysqlInstancesRoot } from './setup.js';

describe('mysqlInstancesRoot', () => {
  const cases = [
    { reason: 'under the data directory by default', input: { dataDir: '/data', env: {} }, want: '/data/providers/local/mysql' },
    { reason: 'the option wins', input: { dataDir: '/data', instancesDir: '/srv/my', env: { CONDUCTOR_MARIADB_INSTANCES_DIR: '/env' } }, want: '/srv/my' },
    { reason: 'then the environment', input: { dataDir: '/data', env: { CONDUCTOR_MARIADB_INSTANCES_DIR: '/env' } }, want: '/env' },
    {
      reason: 'beside PostgreSQL instances kept elsewhere',
      input: { dataDir: '/data', postgresInstancesDir: '/var/tmp/conductor-postgres-abc', env: {} },
      want: '/var/tmp/conductor-mysql-abc',
    },
    {
      reason: 'beside a PostgreSQL directory without "postgres" in its name',
      input: { dataDir: '/data', env: { CONDUCTOR_POSTGRES_INSTANCES_DIR: '/srv/pg' } },
      want: '/srv/pg-mysql',
    },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(mysqlInstancesRoot(c.input), c.want));
});

describe('MariaDB binaries', () => {
  test('CONDUCTOR_MARIADB_BIN must hold both programs, and the error says which are missing and where', async () => {
    await assert.rejects(
      resolveMariaDbBinaries({ env: { CONDUCTOR_MARIADB_BIN: '/nonexistent' } }),
      /mariadbd and mariadb-install-db not found in \/nonexistent \(environment\)/,
    );
  });
  test('the system installation is found and its version read', async () => {
    const found = await resolveMariaDbBinaries({ env: {} });
    assert.match(found.version, /^\d+\.\d+\.\d+-MariaDB$/);
    assert.match(found.server, /mariadbd$/);
  });
  test('without binaries both kinds stay registered and the instance kind says why', async () => {
    const kinds = await createMySqlKinds({ dataDir: '/nonexistent', mariadbBin: '/nonexistent/bin', env: {} });
    assert.deepEqual(
      kinds.kinds.map((k) => [k.kind, k.sharing, k.lifecycle]),
      [
        ['MySQLServer', 'Shared', 'Registered'],
        ['LocalMySQLInstance', 'Exclusive', 'Managed'],
      ],
    );
    assert.match(kinds.unavailable ?? '', /not found in \/nonexistent\/bin \(option\)/);
    await assert.rejects(
      kinds.kinds[1].connector.connect({ apiVersion: 'v', kind: 'LocalMySQLInstance', metadata: { name: 'x', namespace: 'y' } }, {}),
      /unavailable on this machine/,
    );
    await kinds.stopAll();
  });
});
