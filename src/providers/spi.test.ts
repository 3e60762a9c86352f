import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { doesNotFit, fits, implementationFor, isSharedClient, type ConcreteKind, type ExternalClient } from './spi.js';
import { postgresqlServerConcreteKind } from './local/postgresql/shared-server.js';

describe('provider SPI helpers', () => {
  test('doesNotFit carries the reason; fits has none', () => {
    assert.deepEqual(doesNotFit('too small'), { fits: false, reason: 'too small' });
    assert.deepEqual(fits, { fits: true });
  });

  test('isSharedClient needs both per-claim operations', () => {
    const base: ExternalClient = {
      observe: async () => ({ exists: false, upToDate: false }),
      create: async () => ({}),
      update: async () => ({}),
      delete: async () => {},
    };
    assert.equal(isSharedClient(base), false);
    const halfShared: ExternalClient = Object.assign({}, base, { bindClaim: async () => ({}) });
    const shared: ExternalClient = Object.assign({}, base, { bindClaim: async () => ({}), unbindClaim: async () => {} });
    assert.equal(isSharedClient(halfShared), false);
    assert.equal(isSharedClient(shared), true);
  });

  test('implementationFor matches the claim kind by group and case-insensitive kind', () => {
    const kind = postgresqlServerConcreteKind as ConcreteKind;
    assert.ok(implementationFor(kind, { group: 'storage.conductor.io', kind: 'PostgreSQLInstance' }));
    assert.ok(implementationFor(kind, { group: 'storage.conductor.io', kind: 'postgresqlinstance' }));
    assert.equal(implementationFor(kind, { group: 'storage.conductor.io', kind: 'MySQLInstance' }), undefined);
    assert.equal(implementationFor(kind, { group: 'other.io', kind: 'PostgreSQLInstance' }), undefined);
  });
});
