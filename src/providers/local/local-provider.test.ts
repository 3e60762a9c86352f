import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalProvider } from './local-provider.js';
import { localKinds, localProvider } from './provider.js';
import { startedKindProblems } from '../kind-definition.js';
import type { ConcreteKind, MatchCandidate } from '../spi.js';

const claim = { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'PostgreSQLInstance', metadata: { namespace: 'ns', name: 'c' }, spec: {} };
const resource = {
  apiVersion: 'database.local.conductor.io/v1alpha1',
  kind: 'LocalPostgreSQLInstance',
  metadata: { namespace: 'conductor-system', name: 'x' },
  spec: {},
};
const classCandidate: MatchCandidate = {
  type: 'class',
  resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'local' } },
  template: { apiVersion: 'database.local.conductor.io/v1alpha1', kind: 'LocalPostgreSQLInstance', spec: {} },
};

/** The provider's kinds that implement one SQL claim kind (others add kinds for other claims). */
const sqlKinds = (provider: { kinds: readonly ConcreteKind[] }, claimKind: string) =>
  provider.kinds.filter((k) => k.implements.some((i) => i.claimKind.kind === claimKind));

describe('createLocalProvider', () => {
  test('offers both PostgreSQL kinds for PostgreSQLInstance claims', async () => {
    const provider = await createLocalProvider({ dataDir: '/nonexistent', env: {} });
    assert.equal(provider.type, 'local');
    assert.deepEqual(
      sqlKinds(provider, 'PostgreSQLInstance').map((k) => [k.kind, k.plural, k.sharing, k.lifecycle, k.implements.map((i) => i.claimKind.kind)]),
      [
        ['PostgreSQLServer', 'postgresqlservers', 'Shared', 'Registered', ['PostgreSQLInstance']],
        ['LocalPostgreSQLInstance', 'localpostgresqlinstances', 'Exclusive', 'Managed', ['PostgreSQLInstance']],
      ],
    );
    assert.equal(provider.postgresServers?.root, '/nonexistent/providers/local/postgresql');
    for (const kind of [...sqlKinds(provider, 'PostgreSQLInstance'), ...sqlKinds(provider, 'MySQLInstance')]) {
      assert.deepEqual(kind.implements[0].connectionSecretKeys, ['host', 'port', 'username', 'password', 'database', 'uri']);
    }
  });

  test('offers both MySQL kinds for MySQLInstance claims', async () => {
    const provider = await createLocalProvider({ dataDir: '/nonexistent', env: {} });
    assert.deepEqual(
      sqlKinds(provider, 'MySQLInstance').map((k) => [k.kind, k.plural, k.sharing, k.lifecycle]),
      [
        ['MySQLServer', 'mysqlservers', 'Shared', 'Registered'],
        ['LocalMySQLInstance', 'localmysqlinstances', 'Exclusive', 'Managed'],
      ],
    );
    await provider.stopAll();
  });

  test('without usable binaries the instance kind stays registered and says why it cannot work', async () => {
    const provider = await createLocalProvider({ dataDir: '/nonexistent', postgresBin: '/nonexistent/bin', env: {} });
    assert.match(provider.postgresUnavailable ?? '', /\/nonexistent\/bin\/initdb is missing/);
    const kind = provider.kinds.find((k) => k.kind === 'LocalPostgreSQLInstance')!;
    await assert.rejects(
      kind.connector.connect(resource, {}),
      /LocalPostgreSQLInstance is unavailable on this machine: PostgreSQL binaries in \/nonexistent\/bin/,
    );
    assert.deepEqual(kind.implements[0].match(claim, classCandidate), { fits: false, reason: 'no PostgreSQL server binaries on this machine' });
    await provider.stopAll();
  });

  test('as root, a data directory the server user cannot reach is reported with the fix', { skip: process.geteuid?.() !== 0 && 'needs root' }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'conductor-private-')); // mode 0700, owned by root
    try {
      const provider = await createLocalProvider({ dataDir, env: {} });
      const kind = provider.kinds.find((k) => k.kind === 'LocalPostgreSQLInstance')!;
      const client = await kind.connector.connect(resource, {});
      await assert.rejects(client.create(resource), new RegExp(`cannot reach .*: ${dataDir} is not searchable by it \\(chmod o\\+x ${dataDir}\\)`));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('localProvider', () => {
  test('its kinds are available without starting anything, and what start runs is exactly them', async () => {
    assert.deepEqual(
      localProvider.kinds.map((k) => k.kind),
      localKinds.map((k) => k.kind),
    );
    // Without binaries (empty PATH) the kinds stay registered and say why they cannot work.
    const provider = await createLocalProvider({ dataDir: '/nonexistent', env: {} });
    assert.deepEqual(startedKindProblems('local', localProvider.kinds, provider.kinds), []);
    const started = await localProvider.start({ dataDir: '/nonexistent', env: {} });
    try {
      assert.deepEqual(started.kinds.map((k) => k.kind).sort(), localKinds.map((k) => k.kind).sort());
    } finally {
      await started.stop?.();
    }
  });
});
