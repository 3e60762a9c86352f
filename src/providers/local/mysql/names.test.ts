import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { claimIdentifier, databaseNameProblem, maxUserLength, userNameProblem } from './names.js';

describe('claimIdentifier', () => {
  test('is readable, lower case and ends with a hash', () => {
    assert.match(claimIdentifier('Team-A', 'orders'), /^team_a_orders_[0-9a-f]{16}$/);
  });
  test('keeps apart claims whose readable parts coincide', () => {
    assert.notEqual(claimIdentifier('a-b', 'c'), claimIdentifier('a', 'b-c'));
  });
  test('property: always a valid user name of at most 32 characters, deterministic', () => {
    const k8sName = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    fc.assert(
      fc.property(k8sName, k8sName, (ns, name) => {
        const id = claimIdentifier(ns, name);
        assert.ok(id.length <= maxUserLength, id);
        assert.equal(userNameProblem(id), undefined);
        assert.equal(databaseNameProblem(id), undefined);
        assert.equal(claimIdentifier(ns, name), id);
      }),
    );
  });
});

describe('name checks', () => {
  const cases = [
    { reason: 'a plain user name', check: userNameProblem, input: 'app_user', want: undefined },
    { reason: 'root is reserved', check: userNameProblem, input: 'root', want: /reserved/ },
    { reason: "Conductor's own admin account is reserved", check: userNameProblem, input: 'conductor', want: /reserved/ },
    { reason: 'a user name over 32 characters', check: userNameProblem, input: 'u'.repeat(33), want: /at most 32/ },
    { reason: 'quotes are refused', check: userNameProblem, input: "a'b", want: /not valid/ },
    { reason: 'a plain database name', check: databaseNameProblem, input: 'orders', want: undefined },
    { reason: 'the mysql system schema is reserved', check: databaseNameProblem, input: 'mysql', want: /reserved/ },
    { reason: 'a hyphen is refused', check: databaseNameProblem, input: 'a-b', want: /not valid/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = c.check(c.input);
      if (c.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? '', c.want);
    });
  }
});
