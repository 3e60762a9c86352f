import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { claimIdentifier, databaseNameProblem, instanceDirectoryName, roleNameProblem } from './names.js';

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
const subdomain = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/);

describe('claimIdentifier', () => {
  const cases = [
    { reason: 'readable namespace and name, then a hash', namespace: 'wordpress', name: 'db', prefix: 'wordpress_db_' },
    { reason: 'dashes and dots become underscores', namespace: 'team-a', name: 'orders.v2', prefix: 'team_a_orders_v2_' },
    { reason: 'a pg_ prefix (reserved for roles) is avoided', namespace: 'pg', name: 'x', prefix: 'c_pg_x_' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const id = claimIdentifier(c.namespace, c.name);
      assert.ok(id.startsWith(c.prefix), id);
      assert.match(id, /_[0-9a-f]{16}$/);
    });
  }

  test('names that read the same after sanitizing stay apart', () => {
    assert.notEqual(claimIdentifier('a-b', 'c'), claimIdentifier('a', 'b-c'));
  });

  test('long names are cut to 63 characters and stay distinct', () => {
    const ns = 'n'.repeat(63);
    const a = claimIdentifier(ns, `${'x'.repeat(200)}-a`);
    const b = claimIdentifier(ns, `${'x'.repeat(200)}-b`);
    assert.equal(a.length, 63);
    assert.notEqual(a, b);
  });

  test('property: valid, deterministic, at most 63 characters, never pg_', () => {
    fc.assert(
      fc.property(label, subdomain, (ns, name) => {
        const id = claimIdentifier(ns, name);
        assert.equal(id, claimIdentifier(ns, name));
        assert.ok(id.length <= 63);
        assert.match(id, /^[a-z0-9_]+$/);
        assert.ok(!id.startsWith('pg_'));
      }),
    );
  });

  test('property: distinct claims get distinct identifiers', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(label, subdomain), { selector: ([n, m]) => `${n}/${m}`, minLength: 2, maxLength: 50 }), (claims) => {
        const ids = claims.map(([n, m]) => claimIdentifier(n, m));
        assert.equal(new Set(ids).size, ids.length);
      }),
    );
  });
});

describe('instanceDirectoryName', () => {
  test('namespace and name joined by an underscore', () => {
    assert.equal(instanceDirectoryName('conductor-system', 'orders-db'), 'conductor-system_orders-db');
  });

  test('property: one-to-one, no path separators, bounded length', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(label, subdomain), { selector: ([n, m]) => `${n}/${m}`, minLength: 2, maxLength: 30 }), (pairs) => {
        const names = pairs.map(([n, m]) => instanceDirectoryName(n, m));
        assert.equal(new Set(names).size, names.length);
        for (const name of names) {
          assert.ok(!name.includes('/') && !name.startsWith('.') && name.length <= 120, name);
        }
      }),
    );
  });

  test('unexpected characters cannot escape the directory', () => {
    const name = instanceDirectoryName('..', '../../etc');
    assert.ok(!name.includes('/') && !name.startsWith('.'), name);
  });
});

describe('roleNameProblem and databaseNameProblem', () => {
  const cases: { reason: string; check: (n: string) => string | undefined; input: string; want: RegExp | undefined }[] = [
    { reason: 'a plain user name is fine', check: roleNameProblem, input: 'masteruser', want: undefined },
    { reason: 'dashes are fine (names are quoted)', check: roleNameProblem, input: 'app-user', want: undefined },
    { reason: 'the superuser name is reserved', check: roleNameProblem, input: 'postgres', want: /reserved/ },
    { reason: 'pg_ roles are reserved', check: roleNameProblem, input: 'pg_monitor', want: /reserved/ },
    { reason: 'a leading digit is not valid', check: roleNameProblem, input: '1user', want: /not valid/ },
    { reason: 'quotes are not valid', check: roleNameProblem, input: 'a"b', want: /not valid/ },
    { reason: 'longer than 63 is not valid', check: roleNameProblem, input: 'u'.repeat(64), want: /at most 63/ },
    { reason: 'a plain database name is fine', check: databaseNameProblem, input: 'orders', want: undefined },
    { reason: 'template databases are reserved', check: databaseNameProblem, input: 'template1', want: /reserved/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = c.check(c.input);
      if (c.want) assert.match(got ?? '', c.want);
      else assert.equal(got, undefined);
    });
  }
});
