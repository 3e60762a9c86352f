import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Quantity, QuantityError, compareQuantities, isQuantity, parseQuantity, type QuantityFormat } from './quantity.js';

describe('parseQuantity and format', () => {
  const cases: Array<{ reason: string; input: string | number; format: string; family: QuantityFormat; number: number }> = [
    { reason: 'binary gibibytes stay binary', input: '25Gi', format: '25Gi', family: 'BinarySI', number: 25 * 2 ** 30 },
    { reason: 'decimal megabytes stay decimal', input: '500M', format: '500M', family: 'DecimalSI', number: 5e8 },
    { reason: 'a fraction becomes milli-units', input: '1.5', format: '1500m', family: 'DecimalSI', number: 1.5 },
    { reason: 'milli-units', input: '100m', format: '100m', family: 'DecimalSI', number: 0.1 },
    { reason: 'a whole number of milli-units simplifies', input: '1000m', format: '1', family: 'DecimalSI', number: 1 },
    { reason: 'trailing zeros move into the suffix', input: '3000', format: '3k', family: 'DecimalSI', number: 3000 },
    { reason: 'digits that do not fill a group of three stay', input: '1500', format: '1500', family: 'DecimalSI', number: 1500 },
    { reason: 'an exponent keeps the exponent family', input: '1e3', format: '1e3', family: 'DecimalExponent', number: 1000 },
    { reason: 'an upper-case exponent', input: '1E3', format: '1e3', family: 'DecimalExponent', number: 1000 },
    { reason: 'a negative exponent', input: '5e-3', format: '5e-3', family: 'DecimalExponent', number: 0.005 },
    { reason: 'an exponent with a sign', input: '2e+6', format: '2e6', family: 'DecimalExponent', number: 2e6 },
    { reason: 'E alone is exa', input: '1E', format: '1E', family: 'DecimalSI', number: 1e18 },
    { reason: 'kibibytes', input: '2Ki', format: '2Ki', family: 'BinarySI', number: 2048 },
    { reason: 'binary moves up a suffix when it can', input: '1024Mi', format: '1Gi', family: 'BinarySI', number: 2 ** 30 },
    { reason: 'a binary fraction that is whole in a smaller unit', input: '1.5Gi', format: '1536Mi', family: 'BinarySI', number: 1.5 * 2 ** 30 },
    { reason: 'a binary amount under 1024 is written in decimal', input: '0.5Ki', format: '512', family: 'BinarySI', number: 512 },
    { reason: 'a binary amount with a fraction is written in decimal', input: '1.0001Ki', format: '1024102400u', family: 'BinarySI', number: 1024.1024 },
    { reason: 'nano is the finest unit', input: '1n', format: '1n', family: 'DecimalSI', number: 1e-9 },
    { reason: 'micro', input: '250u', format: '250u', family: 'DecimalSI', number: 0.00025 },
    { reason: 'finer than nano rounds up', input: '0.1n', format: '1n', family: 'DecimalSI', number: 1e-9 },
    { reason: 'negative finer than nano rounds away from zero', input: '-0.1n', format: '-1n', family: 'DecimalSI', number: -1e-9 },
    { reason: 'a leading plus', input: '+5k', format: '5k', family: 'DecimalSI', number: 5000 },
    { reason: 'a leading dot', input: '.5', format: '500m', family: 'DecimalSI', number: 0.5 },
    { reason: 'a trailing dot', input: '5.', format: '5', family: 'DecimalSI', number: 5 },
    { reason: 'zero', input: '0', format: '0', family: 'DecimalSI', number: 0 },
    { reason: 'negative zero is zero', input: '-0Gi', format: '0', family: 'BinarySI', number: 0 },
    { reason: 'negative amounts', input: '-3Mi', format: '-3Mi', family: 'BinarySI', number: -3 * 2 ** 20 },
    { reason: 'surrounding whitespace is ignored', input: ' 2G ', format: '2G', family: 'DecimalSI', number: 2e9 },
    { reason: 'a JSON number', input: 2.5, format: '2500m', family: 'DecimalSI', number: 2.5 },
    { reason: 'a large JSON number', input: 1.5e21, format: '1500e18', family: 'DecimalExponent', number: 1.5e21 },
    { reason: 'beyond exa, decimal SI grows the number', input: '1000000E', format: '1000000E', family: 'DecimalSI', number: 1e24 },
    {
      reason: 'numbers beyond 64 bits stay exact',
      input: '123456789012345678901234567890',
      format: '123456789012345678901234567890',
      family: 'DecimalSI',
      number: 1.2345678901234568e29,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const q = parseQuantity(c.input);
      assert.equal(q.format(), c.format);
      assert.equal(q.family, c.family);
      assert.equal(q.toNumber(), c.number);
      assert.equal(String(q), c.format);
      assert.equal(JSON.stringify({ q }), JSON.stringify({ q: c.format }));
    });
  }

  const bad: Array<{ reason: string; input: string | number; want: RegExp }> = [
    { reason: 'the empty string', input: '', want: /^invalid quantity "": expected a number \(like 5, 1\.5 or \.5\)/ },
    { reason: 'letters only', input: 'abc', want: /expected a number .* matching '\^\(\[\+-\]\?\[0-9\.\]\+\)/ },
    { reason: 'a dot alone', input: '.', want: /expected a number/ },
    { reason: 'an upper-case K', input: '1K', want: /^invalid quantity "1K": unknown suffix "K"; expected one of n, u, m, k, M, G, T, P, E, Ki/ },
    { reason: 'a lower-case binary suffix', input: '1ki', want: /unknown suffix "ki"/ },
    { reason: 'an exponent without digits', input: '1e', want: /unknown suffix "e"/ },
    { reason: 'two dots', input: '1.2.3', want: /expected a number followed by an optional suffix/ },
    { reason: 'a suffix with spaces inside', input: '1 Gi', want: /expected a number followed by an optional suffix/ },
    { reason: 'an absurd exponent', input: '1e100000', want: /expected an exponent between -1000 and 1000/ },
    { reason: 'a very long input', input: '1'.repeat(300), want: /expected at most 256 characters/ },
    { reason: 'infinity', input: Infinity, want: /expected a finite number/ },
  ];
  for (const c of bad) {
    test(`rejects ${c.reason}`, () => {
      assert.throws(
        () => parseQuantity(c.input),
        (err: unknown) => err instanceof QuantityError && c.want.test(err.message),
      );
      assert.equal(isQuantity(c.input), false);
    });
  }
});

describe('arithmetic and comparison', () => {
  const q = parseQuantity;
  test('compare across families by value', () => {
    assert.equal(q('1Ki').cmp(q('1024')), 0);
    assert.equal(q('1k').cmp(q('1Ki')), -1);
    assert.equal(q('1G').cmp(q('1e9')), 0);
    assert.equal(q('1Gi').cmp(q('1G')), 1);
    assert.equal(q('-1').cmp(q('1m')), -1);
    assert.ok(q('1Ki').equals(q('1024')));
    assert.deepEqual(['2Gi', '1', '500m', '1G'].map(q).sort(compareQuantities).map(String), ['500m', '1', '1G', '2Gi']);
  });
  test('add keeps the first family unless it is zero', () => {
    assert.equal(q('1Gi').add(q('512Mi')).format(), '1536Mi');
    assert.equal(q('1').add(q('500m')).format(), '1500m');
    assert.equal(Quantity.zero().add(q('2Ki')).format(), '2Ki');
    assert.equal(q('1Gi').add(q('1G')).format(), '2073741824');
  });
  test('sub, neg, mul', () => {
    assert.equal(q('1Gi').sub(q('1Gi')).format(), '0');
    assert.equal(q('1').sub(q('1500m')).format(), '-500m');
    assert.equal(q('250m').neg().format(), '-250m');
    assert.equal(q('3Mi').mul(1024).format(), '3Gi');
  });
  test('value and milliValue round away from zero', () => {
    assert.equal(q('1500m').value(), 2n);
    assert.equal(q('-1500m').value(), -2n);
    assert.equal(q('2').value(), 2n);
    assert.equal(q('1.0001').milliValue(), 1001n);
    assert.equal(q('1Ki').milliValue(), 1024000n);
  });
  test('constructors', () => {
    assert.equal(Quantity.fromInt(2048, 'BinarySI').format(), '2Ki');
    assert.equal(Quantity.fromMilli(1500).format(), '1500m');
    assert.equal(Quantity.fromNanos(5n).format(), '5n');
    assert.equal(Quantity.parse('3k').toDecimalString(), '3000');
    assert.equal(Quantity.parse('-1.25').toDecimalString(), '-1.25');
    assert.throws(() => Quantity.fromInt(1.5), /safe integer/);
  });
});

describe('properties', () => {
  const decimalSuffix = fc.constantFrom(...['n', 'u', 'm', '', 'k', 'M', 'G', 'T', 'P', 'E']);
  const binarySuffix = fc.constantFrom(...['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);
  const exponent = fc.integer({ min: -9, max: 30 }).map((e) => `e${e}`);
  const suffix = fc.oneof(decimalSuffix, binarySuffix, exponent);
  const mantissa = fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n });
  const fraction = fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined });
  const quantityText = fc.tuple(mantissa, fraction, suffix).map(([m, f, s]) => `${m < 0n ? '-' : ''}${m < 0n ? -m : m}${f === undefined ? '' : `.${f}`}${s}`);

  /** The exact value times 10^9 of an integer mantissa with a suffix, computed independently. */
  function expectedNanos(m: bigint, s: string): bigint {
    const decimal: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
    const binary: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
    if (s in binary) return m * 1024n ** BigInt(binary[s]) * 10n ** 9n;
    const e = s in decimal ? decimal[s] : Number(s.slice(1));
    return m * 10n ** BigInt(e + 9);
  }

  test('parse(format(q)) is q, and format is idempotent', () => {
    fc.assert(
      fc.property(quantityText, (text) => {
        const q = parseQuantity(text);
        const again = parseQuantity(q.format());
        assert.equal(again.nanos, q.nanos);
        assert.equal(again.format(), q.format());
      }),
    );
  });

  test('integer mantissas parse to their exact value', () => {
    fc.assert(
      fc.property(mantissa, suffix, (m, s) => {
        assert.equal(parseQuantity(`${m}${s}`).nanos, expectedNanos(m, s));
      }),
    );
  });

  test('ordering agrees with the exact values and with toNumber', () => {
    fc.assert(
      fc.property(mantissa, suffix, mantissa, suffix, (ma, sa, mb, sb) => {
        const a = parseQuantity(`${ma}${sa}`);
        const b = parseQuantity(`${mb}${sb}`);
        const ea = expectedNanos(ma, sa);
        const eb = expectedNanos(mb, sb);
        assert.equal(a.cmp(b), ea < eb ? -1 : ea > eb ? 1 : 0);
        if (a.cmp(b) < 0) assert.ok(a.toNumber() <= b.toNumber());
        assert.equal(a.cmp(b), -b.cmp(a) || 0);
      }),
    );
  });

  test('add and sub are exact inverses', () => {
    fc.assert(
      fc.property(quantityText, quantityText, (x, y) => {
        const a = parseQuantity(x);
        const b = parseQuantity(y);
        assert.ok(a.add(b).sub(b).equals(a));
        assert.ok(a.add(b).equals(b.add(a)));
      }),
    );
  });
});
