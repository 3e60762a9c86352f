import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { nextFreeNames, POOL_NAME_LIMIT, poolIndexOf, poolMemberName } from './names.js';

describe('poolMemberName', () => {
  const cases = [
    { reason: 'a short class name is used as is', cls: 'dedicated', n: 0, want: 'dedicated-pool-0' },
    { reason: 'the index is decimal', cls: 'dedicated', n: 12, want: 'dedicated-pool-12' },
    { reason: 'upper case is folded', cls: 'Fast', n: 1, want: 'fast-pool-1' },
    { reason: 'exactly 63 characters still fits', cls: 'a'.repeat(63 - '-pool-0'.length), n: 0, want: `${'a'.repeat(56)}-pool-0` },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(poolMemberName(c.cls, c.n), c.want));

  test('a long class name is cut and hashed, deterministically and distinctly', () => {
    const a = poolMemberName(`${'x'.repeat(70)}-a`, 3);
    const b = poolMemberName(`${'x'.repeat(70)}-b`, 3);
    assert.ok(a.length <= POOL_NAME_LIMIT && b.length <= POOL_NAME_LIMIT);
    assert.notEqual(a, b, 'two long names with one prefix');
    assert.equal(a, poolMemberName(`${'x'.repeat(70)}-a`, 3), 'same input, same name');
    assert.match(a, /^x+-[0-9a-f]{10}-pool-3$/);
  });

  test('rejects a negative or fractional index', () => {
    assert.throws(() => poolMemberName('c', -1), /non-negative integer/);
    assert.throws(() => poolMemberName('c', 1.5), /non-negative integer/);
  });

  test('property: names are valid DNS labels and poolIndexOf reads the index back', () => {
    const className = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,120}[a-z0-9])?$/);
    fc.assert(
      fc.property(className, fc.nat({ max: 100_000 }), (cls, n) => {
        const name = poolMemberName(cls, n);
        assert.ok(name.length <= POOL_NAME_LIMIT, name);
        assert.match(name, /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/);
        assert.equal(poolIndexOf(cls, name), n);
      }),
    );
  });
});

describe('poolIndexOf', () => {
  test('names of another class or not of a pool read as undefined', () => {
    assert.equal(poolIndexOf('a', 'b-pool-1'), undefined);
    assert.equal(poolIndexOf('a', 'a-pool-01'), undefined);
    assert.equal(poolIndexOf('a', 'a-1'), undefined);
  });
});

describe('nextFreeNames', () => {
  const cases = [
    { reason: 'an empty pool starts at 0', taken: [] as string[], count: 2, want: ['c-pool-0', 'c-pool-1'] },
    { reason: 'gaps are filled lowest first', taken: ['c-pool-0', 'c-pool-2'], count: 2, want: ['c-pool-1', 'c-pool-3'] },
    { reason: 'a name taken by anything is skipped', taken: ['c-pool-0'], count: 1, want: ['c-pool-1'] },
    { reason: 'zero names asked, none given', taken: [], count: 0, want: [] },
  ];
  for (const c of cases) {
    test(c.reason, () =>
      assert.deepEqual(
        nextFreeNames('c', c.count, (n) => c.taken.includes(n)),
        c.want,
      ),
    );
  }
});
