import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MemoryDatabases, randomPassword, shareIdentifier } from './memory-databases.js';

function counter(): () => string {
  let n = 0;
  return () => `pw-${++n}`;
}
const fixedClock = () => new Date('2026-01-02T03:04:05.678Z');

describe('MemoryDatabases', () => {
  test('ensure creates once with a new password, then updates in place keeping password and creation time', () => {
    const dbs = new MemoryDatabases({ newPassword: counter(), now: fixedClock });
    const first = dbs.ensure('ns/a', { username: 'app', database: 'app' });
    assert.deepEqual(
      { ...first, shares: first.shares.size },
      { externalName: 'ns/a', username: 'app', database: 'app', password: 'pw-1', createdAt: '2026-01-02T03:04:05Z', scrubs: 0, shares: 0 },
    );
    const again = dbs.ensure('ns/a', { username: 'bob', database: 'app', version: '16', port: 6000 });
    assert.equal(again.password, 'pw-1');
    assert.equal(again.username, 'bob');
    assert.equal(again.version, '16');
    assert.equal(again.port, 6000);
    assert.equal(dbs.size, 1);
    assert.ok(Object.isFrozen(again), 'records are immutable snapshots');
    assert.equal(first.username, 'app', 'an earlier snapshot does not change');
  });

  test('remove is idempotent and reports whether the database existed', () => {
    const dbs = new MemoryDatabases();
    dbs.ensure('ns/a', { username: 'app', database: 'app' });
    assert.equal(dbs.remove('ns/a'), true);
    assert.equal(dbs.remove('ns/a'), false);
    assert.equal(dbs.get('ns/a'), undefined);
  });

  test('scrub rotates the password and counts; scrubbing nothing does nothing', () => {
    const dbs = new MemoryDatabases({ newPassword: counter() });
    dbs.ensure('ns/a', { username: 'app', database: 'app' });
    const scrubbed = dbs.scrub('ns/a')!;
    assert.equal(scrubbed.password, 'pw-2');
    assert.equal(scrubbed.scrubs, 1);
    assert.equal(dbs.scrub('ns/missing'), undefined);
    assert.equal(dbs.size, 1);
  });

  test('list is ordered by external name', () => {
    const dbs = new MemoryDatabases();
    for (const n of ['ns/c', 'ns/a', 'other/b']) dbs.ensure(n, { username: 'app', database: 'app' });
    assert.deepEqual(
      dbs.list().map((r) => r.externalName),
      ['ns/a', 'ns/c', 'other/b'],
    );
  });

  describe('shares', () => {
    const cases: { reason: string; run: (dbs: MemoryDatabases) => unknown; want: unknown }[] = [
      {
        reason: 'a claim without names gets <namespace>_<name>_<hash> and a new password',
        run: (dbs) => {
          const s = dbs.ensureShare('ns/db', { claim: 'shop/orders', claimUid: 'u1' });
          return [s.username, s.database, s.password, s.claimUid];
        },
        want: [shareIdentifier('shop/orders'), shareIdentifier('shop/orders'), 'pw-2', 'u1'],
      },
      {
        reason: 'a repeated bind returns the same share',
        run: (dbs) => {
          const a = dbs.ensureShare('ns/db', { claim: 'shop/orders' });
          const b = dbs.ensureShare('ns/db', { claim: 'shop/orders', previousPassword: 'other' });
          return a === b;
        },
        want: true,
      },
      {
        reason: 'a share made anew keeps the previous password',
        run: (dbs) => dbs.ensureShare('ns/db', { claim: 'shop/orders', previousPassword: 'kept' }).password,
        want: 'kept',
      },
      {
        reason: "the claim's own names are used",
        run: (dbs) => {
          const s = dbs.ensureShare('ns/db', { claim: 'shop/orders', username: 'bob', database: 'orders' });
          return [s.username, s.database];
        },
        want: ['bob', 'orders'],
      },
      {
        reason: 'a user name another claim uses is refused',
        run: (dbs) => {
          dbs.ensureShare('ns/db', { claim: 'shop/a', username: 'bob' });
          try {
            dbs.ensureShare('ns/db', { claim: 'shop/b', username: 'bob' });
            return 'no error';
          } catch (err) {
            return (err as Error).message;
          }
        },
        want: 'memory database "ns/db": user "bob" already belongs to claim shop/a; want a user name no other claim on it uses',
      },
      {
        reason: "reset erases the share's data and keeps its password; remove drops it; both accept what is gone",
        run: (dbs) => {
          dbs.ensureShare('ns/db', { claim: 'shop/a' });
          dbs.resetShare('ns/db', 'shop/a');
          dbs.resetShare('ns/db', 'shop/missing');
          const reset = dbs.get('ns/db')!.shares.get('shop/a')!;
          dbs.removeShare('ns/db', 'shop/a');
          dbs.removeShare('ns/db', 'shop/a');
          dbs.removeShare('ns/missing', 'shop/a');
          return [reset.resets, reset.password, dbs.get('ns/db')!.shares.size];
        },
        want: [1, 'pw-2', 0],
      },
    ];
    for (const c of cases) {
      test(c.reason, () => {
        const dbs = new MemoryDatabases({ newPassword: counter() });
        dbs.ensure('ns/db', { username: 'app', database: 'app' });
        assert.deepEqual(c.run(dbs), c.want);
      });
    }

    test('binding to a database that does not exist fails with its name', () => {
      assert.throws(() => new MemoryDatabases().ensureShare('ns/none', { claim: 'shop/a' }), /memory database "ns\/none" does not exist/);
    });

    test('updating the database keeps its shares', () => {
      const dbs = new MemoryDatabases();
      dbs.ensure('ns/db', { username: 'app', database: 'app' });
      dbs.ensureShare('ns/db', { claim: 'shop/a' });
      assert.equal(dbs.ensure('ns/db', { username: 'other', database: 'app' }).shares.size, 1);
    });
  });
});

describe('shareIdentifier', () => {
  test('is at most 63 characters of [a-z0-9_], and distinct claims get distinct identifiers', () => {
    const part = fc.string({ minLength: 1, maxLength: 80 });
    fc.assert(
      fc.property(part, part, part, (ns, a, b) => {
        const x = shareIdentifier(`${ns}/${a}`);
        assert.match(x, /^[a-z0-9_]{1,63}$/);
        if (a !== b) assert.notEqual(x, shareIdentifier(`${ns}/${b}`));
      }),
    );
  });

  const cases = [
    { reason: 'a short name stays readable, with its hash', claim: 'shop/orders-db', want: /^shop_orders_db_[0-9a-f]{16}$/ },
    { reason: 'a long name is cut to fit', claim: `shop/${'x'.repeat(100)}`, want: /^shop_x{41}_[0-9a-f]{16}$/ },
  ];
  for (const c of cases) test(c.reason, () => assert.match(shareIdentifier(c.claim), c.want));

  test('names that read alike once sanitized stay apart', () => {
    assert.notEqual(shareIdentifier('a-b/c'), shareIdentifier('a/b-c'));
  });
});

test('randomPassword gives 24 URL-safe characters that differ between calls', () => {
  const a = randomPassword();
  assert.match(a, /^[A-Za-z0-9_-]{24}$/);
  assert.notEqual(a, randomPassword());
});
