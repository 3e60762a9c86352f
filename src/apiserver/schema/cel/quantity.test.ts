import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Quantity } from './quantity.js';

describe('Quantity', () => {
  const equal: { reason: string; a: string; b: string }[] = [
    { reason: 'binary suffixes', a: '1Gi', b: '1073741824' },
    { reason: 'decimal suffixes', a: '1.5k', b: '1500' },
    { reason: 'milli', a: '500m', b: '0.5' },
    { reason: 'exponents', a: '2e3', b: '2k' },
    { reason: 'negative exponents', a: '5E-3', b: '5m' },
    { reason: 'signs', a: '-1.5', b: '-1500m' },
  ];
  for (const c of equal) test(`${c.reason}: ${c.a} == ${c.b}`, () => assert.equal(Quantity.parse(c.a)?.compare(Quantity.parse(c.b)!), 0));

  test('ordering', () => {
    assert.equal(Quantity.parse('512Mi')!.compare(Quantity.parse('1Gi')!), -1);
    assert.equal(Quantity.parse('1G')!.compare(Quantity.parse('1Gi')!), -1);
  });

  test('invalid quantities', () => {
    for (const s of ['', 'abc', '1.2.3', '1Qi', '5 Gi', '1e1000']) assert.equal(Quantity.parse(s), undefined, s);
  });

  test('integer parse round-trips and addition is exact', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), (a, b) => {
        const qa = Quantity.parse(a.toString())!;
        const qb = Quantity.parse(b.toString())!;
        assert.equal(qa.num, a);
        assert.equal(qa.add(qb).num, a + b);
        assert.equal(qa.compare(qb), a < b ? -1 : a > b ? 1 : 0);
      }),
    );
  });
});
