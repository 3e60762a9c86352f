import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claimGcpName, defaultGcpName, gcpNameProblem, GCP_NAME_PATTERNS, type GcpNameKind } from './names.js';

describe("Google's id rules and claim-derived ids", () => {
  const cases: { kind: GcpNameKind; name: string; want: RegExp | undefined }[] = [
    { kind: 'topic', name: 'orders', want: undefined },
    { kind: 'topic', name: 'Orders.v1~x+y%z_w', want: undefined },
    { kind: 'topic', name: 'ab', want: /has 2 characters: want 3 to 255/ },
    { kind: 'topic', name: '1orders', want: /must begin with a letter/ },
    { kind: 'topic', name: 'google-things', want: /must not begin with "goog"/ },
    { kind: 'subscription', name: 'has space', want: /must begin with a letter and hold only/ },
    { kind: 'instance', name: 'shared-pg', want: undefined },
    { kind: 'instance', name: 'shared-', want: /not end with a hyphen/ },
    { kind: 'instance', name: 'Shared', want: /lower-case/ },
    { kind: 'database', name: 'orders_db-1', want: undefined },
    { kind: 'database', name: 'a'.repeat(31), want: /has 31 characters: want 2 to 30/ },
    { kind: 'database', name: 'Not_A_Database', want: /must begin with a lower-case letter/ },
  ];
  for (const c of cases) {
    test(`${c.kind} ${c.name}`, () => {
      const got = gcpNameProblem(c.kind, c.name);
      if (c.want) assert.match(got ?? '', c.want);
      else assert.equal(got, undefined);
    });
  }

  test('claim ids obey every rule and the schema patterns, even for names beginning with a digit or goog', () => {
    for (const kind of ['topic', 'subscription', 'instance', 'database'] as const) {
      for (const [ns, name] of [
        ['shop', 'orders'],
        ['9lives', 'cat'],
        ['google', 'x'],
        ['a-very-long-namespace-name-indeed', 'and-a-very-long-claim-name-as-well'],
      ]) {
        const id = claimGcpName(kind, ns, name);
        assert.equal(gcpNameProblem(kind, id), undefined, `${kind} ${id}`);
        assert.match(id, new RegExp(GCP_NAME_PATTERNS[kind]), `${kind} ${id} matches the CRD pattern`);
      }
    }
    assert.match(claimGcpName('database', 'shop', 'orders'), /^shop-orders-[0-9a-f]{16}$/);
    assert.notEqual(claimGcpName('topic', 'a-b', 'c'), claimGcpName('topic', 'a', 'b-c'), 'the hash keeps apart claims whose readable parts agree');
  });

  test("a resource's own name when Google accepts it, else one derived", () => {
    assert.equal(defaultGcpName('topic', 'conductor-system', 'orders'), 'orders');
    const derived = defaultGcpName('database', 'conductor-system', 'a-name-that-is-far-too-long-for-spanner');
    assert.match(derived, /^conductor-s-[0-9a-f]{16}$/);
    assert.equal(gcpNameProblem('database', derived), undefined);
  });
});
