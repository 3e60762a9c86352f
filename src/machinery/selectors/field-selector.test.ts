import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isApiError } from '../errors.js';
import { FieldSelector, assertFieldsSupported, escapeFieldValue, fieldSelectorFromSet, parseFieldSelector, unescapeFieldValue } from './field-selector.js';

describe('parseFieldSelector', () => {
  const ok: Array<{ reason: string; input: string; want: Array<[string, string, string]>; string: string }> = [
    { reason: 'the empty string selects everything', input: '', want: [], string: '' },
    { reason: 'one equality', input: 'metadata.name=foo', want: [['metadata.name', 'Equals', 'foo']], string: 'metadata.name=foo' },
    {
      reason: 'all three operators, sorted by field',
      input: 'status.phase!=Done,metadata.name==a,metadata.namespace=b',
      want: [
        ['metadata.name', 'DoubleEquals', 'a'],
        ['metadata.namespace', 'Equals', 'b'],
        ['status.phase', 'NotEquals', 'Done'],
      ],
      string: 'metadata.name==a,metadata.namespace=b,status.phase!=Done',
    },
    { reason: 'an empty value', input: 'spec.nodeName=', want: [['spec.nodeName', 'Equals', '']], string: 'spec.nodeName=' },
    {
      reason: 'empty terms are skipped',
      input: 'a=1,,b=2,',
      want: [
        ['a', 'Equals', '1'],
        ['b', 'Equals', '2'],
      ],
      string: 'a=1,b=2',
    },
    { reason: 'escaped comma and equals in a value', input: 'a=x\\,y\\=z', want: [['a', 'Equals', 'x,y=z']], string: 'a=x\\,y\\=z' },
    { reason: 'an escaped backslash', input: 'a=x\\\\', want: [['a', 'Equals', 'x\\']], string: 'a=x\\\\' },
    { reason: 'an escaped bang', input: 'a=\\!x', want: [['a', 'Equals', '!x']], string: 'a=!x' },
    { reason: 'a bang that starts a value is part of it', input: 'a=!x', want: [['a', 'Equals', '!x']], string: 'a=!x' },
  ];
  for (const c of ok) {
    test(c.reason, () => {
      const sel = parseFieldSelector(c.input);
      assert.deepEqual(
        sel.requirements().map((r) => [r.field, r.operator, r.value]),
        c.want,
      );
      assert.equal(sel.toString(), c.string);
      assert.equal(sel.empty, c.want.length === 0);
    });
  }

  const bad: Array<{ reason: string; input: string; want: string }> = [
    { reason: 'a term without operator', input: 'a=b,c', want: "invalid selector: 'a=b,c'; can't understand 'c'" },
    { reason: 'a bare equals in a value', input: 'a=b=c', want: 'invalid field selector: unescaped character =' },
    { reason: 'an unknown escape', input: 'a=\\q', want: 'invalid field selector: invalid escape sequence: \\q' },
    { reason: 'a trailing backslash', input: 'a=b\\', want: 'invalid field selector: invalid escape sequence: \\' },
  ];
  for (const c of bad) {
    test(`rejects ${c.reason}`, () => {
      assert.throws(
        () => parseFieldSelector(c.input),
        (err: unknown) => isApiError(err) && err.code === 400 && err.message === c.want,
      );
    });
  }
});

describe('FieldSelector.matches', () => {
  const fields = { 'metadata.name': 'x', 'status.phase': 'Ready' };
  const cases: Array<{ reason: string; selector: string; want: boolean }> = [
    { reason: 'everything matches', selector: '', want: true },
    { reason: 'equality holds', selector: 'metadata.name=x', want: true },
    { reason: 'equality fails', selector: 'metadata.name=y', want: false },
    { reason: 'inequality holds', selector: 'status.phase!=Done', want: true },
    { reason: 'a missing field counts as empty for equality', selector: 'spec.node=', want: true },
    { reason: 'a missing field differs from a value', selector: 'spec.node!=a', want: true },
    { reason: 'every term must hold', selector: 'metadata.name=x,status.phase=Done', want: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(parseFieldSelector(c.selector).matches(fields), c.want));

  test('requiresExactMatch answers the value an equality pins', () => {
    const sel = parseFieldSelector('metadata.name=x,status.phase!=y');
    assert.equal(sel.requiresExactMatch('metadata.name'), 'x');
    assert.equal(sel.requiresExactMatch('status.phase'), undefined);
    assert.equal(FieldSelector.everything().requiresExactMatch('metadata.name'), undefined);
  });

  test('fieldSelectorFromSet builds equalities', () => {
    assert.equal(fieldSelectorFromSet({ 'metadata.name': 'a,b' }).toString(), 'metadata.name=a\\,b');
  });
});

describe('assertFieldsSupported', () => {
  test('accepts supported fields and names the first unsupported one', () => {
    const sel = parseFieldSelector('metadata.name=a,spec.foo=b');
    assert.doesNotThrow(() => assertFieldsSupported(sel, ['metadata.name', 'spec.foo']));
    assert.throws(
      () => assertFieldsSupported(sel, new Set(['metadata.name', 'metadata.namespace'])),
      (err: unknown) => isApiError(err) && err.code === 400 && err.message === 'field label not supported: spec.foo',
    );
    assert.throws(() => assertFieldsSupported(sel, (f) => f.startsWith('metadata.')), /field label not supported: spec\.foo/);
  });
});

describe('properties', () => {
  test('escaping round-trips any value through a selector', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('=', '==', '!='), (value, op) => {
        assert.equal(unescapeFieldValue(escapeFieldValue(value)), value);
        const sel = parseFieldSelector(`a.b${op}${escapeFieldValue(value)},c=d`);
        assert.equal(sel.requirements()[0].value, value);
        assert.equal(parseFieldSelector(sel.toString()).toString(), sel.toString());
      }),
    );
  });
  test('the parser never throws anything but a 400 ApiError', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '=', '!', ',', '\\', ' ') }), (s) => {
        try {
          parseFieldSelector(s);
        } catch (err) {
          assert.ok(isApiError(err) && err.code === 400, String(err));
        }
      }),
    );
  });
});
