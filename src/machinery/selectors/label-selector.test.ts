import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isApiError } from '../errors.js';
import {
  LabelSelector,
  formatLabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
  validateLabelSelector,
  type LabelSelectorObject,
} from './label-selector.js';
import { parseLabelSelector } from './label-selector-parser.js';

function throwsBadRequest(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(isApiError(err), `want an ApiError, got ${String(err)}`);
    assert.equal(err.code, 400);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

describe('parseLabelSelector', () => {
  const ok: Array<{ reason: string; input: string; want: string }> = [
    { reason: 'the empty string selects everything', input: '', want: '' },
    { reason: 'whitespace alone selects everything', input: '  \t', want: '' },
    { reason: 'equality', input: 'app=web', want: 'app=web' },
    { reason: 'double equality keeps its operator', input: 'app==web', want: 'app==web' },
    { reason: 'inequality', input: 'app!=web', want: 'app!=web' },
    { reason: 'an empty value is allowed', input: 'app=', want: 'app=' },
    { reason: 'existence', input: 'app', want: 'app' },
    { reason: 'non-existence', input: '!app', want: '!app' },
    { reason: 'set membership sorts values', input: 'env in (prod, dev)', want: 'env in (dev,prod)' },
    { reason: 'set exclusion without a space before the parenthesis', input: 'env notin(qa)', want: 'env notin (qa)' },
    { reason: 'a trailing comma in a set adds the empty value', input: 'env in (a,)', want: 'env in (,a)' },
    { reason: 'a set of only the empty value is written with a comma', input: 'env in (,)', want: 'env in (,)' },
    { reason: 'greater-than takes an integer', input: 'gen>3', want: 'gen>3' },
    { reason: 'less-than takes an integer', input: 'gen<10', want: 'gen<10' },
    { reason: 'requirements are sorted by key', input: 'z=1,a=2', want: 'a=2,z=1' },
    { reason: 'whitespace around tokens is ignored', input: ' a = b , ! c ,d in ( x ) ', want: 'a=b,!c,d in (x)' },
    { reason: 'prefixed keys', input: 'conductor.io/abstract=true', want: 'conductor.io/abstract=true' },
    { reason: 'a key may be spelled like a keyword', input: 'in=x', want: 'in=x' },
    { reason: 'a value may be spelled like a keyword', input: 'x=notin', want: 'x=notin' },
  ];
  for (const c of ok) {
    test(c.reason, () => assert.equal(parseLabelSelector(c.input).toString(), c.want));
  }

  const bad: Array<{ reason: string; input: string; want: string | RegExp }> = [
    {
      reason: 'two words without an operator',
      input: 'a b',
      want: "unable to parse requirement: found 'b', expected: '=', '!=', '==', 'in', 'notin', '>' or '<'",
    },
    { reason: 'a trailing comma', input: 'a=b,', want: "found '', expected: identifier after ','" },
    { reason: 'junk after a requirement', input: 'a=b c', want: "found 'c', expected: ',' or 'end of string'" },
    { reason: 'a leading operator', input: '=a', want: "found '=', expected: !, identifier, or 'end of string'" },
    {
      reason: 'an invalid key names the key',
      input: '-ltier=postgres',
      want: /^unable to parse requirement: key: Invalid value: "-ltier": name part must consist of alphanumeric characters/,
    },
    {
      reason: 'an invalid value names the value and its key',
      input: 'app=demo-{nginx}',
      want: /^unable to parse requirement: values\[0\]\[app\]: Invalid value: "demo-\{nginx\}": a valid label must be an empty string/,
    },
    {
      reason: 'a non-integer bound for >',
      input: 'environment>qa',
      want: `unable to parse requirement: values[0]: Invalid value: "qa": for 'Gt', 'Lt' operators, the value must be an integer`,
    },
    {
      reason: 'an empty set',
      input: 'a in ()',
      want: "unable to parse requirement: values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    },
    { reason: 'a set without parentheses', input: 'a in x', want: "unable to parse requirement: found 'x', expected: '('" },
    { reason: 'an unclosed set', input: 'a in (x', want: "unable to parse requirement: found '', expected: ',', ')' or identifier" },
    { reason: 'a negated key with a value', input: '!a=b', want: /^unable to parse requirement: found '=', expected: ',' or 'end of string'/ },
    { reason: 'an operator without a key', input: '!', want: "unable to parse requirement: found '', expected: identifier" },
    {
      reason: 'a colon instead of an equals sign',
      input: 'run:tmp',
      want: /^unable to parse requirement: key: Invalid value: "run:tmp"/,
    },
  ];
  for (const c of bad) {
    test(`rejects ${c.reason}`, () => throwsBadRequest(() => parseLabelSelector(c.input), c.want));
  }
});

describe('LabelSelector.matches', () => {
  const labels = { app: 'web', tier: 'front', gen: '7', empty: '' };
  const cases: Array<{ reason: string; selector: string; labels?: Record<string, string>; want: boolean }> = [
    { reason: 'the empty selector matches', selector: '', want: true },
    { reason: 'the empty selector matches missing labels', selector: '', labels: undefined, want: true },
    { reason: 'equality holds', selector: 'app=web', want: true },
    { reason: 'equality fails on another value', selector: 'app=db', want: false },
    { reason: 'equality fails on a missing key', selector: 'zone=a', want: false },
    { reason: 'empty value equality matches an empty label', selector: 'empty=', want: true },
    { reason: 'inequality holds for a missing key', selector: 'zone!=a', want: true },
    { reason: 'inequality fails on the same value', selector: 'app!=web', want: false },
    { reason: 'in holds', selector: 'tier in (back,front)', want: true },
    { reason: 'in fails on a missing key', selector: 'zone in (a)', want: false },
    { reason: 'notin holds for a missing key', selector: 'zone notin (a)', want: true },
    { reason: 'notin fails on a listed value', selector: 'tier notin (front)', want: false },
    { reason: 'exists', selector: 'app', want: true },
    { reason: 'does not exist', selector: '!app', want: false },
    { reason: 'greater than', selector: 'gen>6', want: true },
    { reason: 'greater than is strict', selector: 'gen>7', want: false },
    { reason: 'less than', selector: 'gen<8', want: true },
    { reason: 'greater than fails on a non-integer label', selector: 'app>1', want: false },
    { reason: 'greater than fails on a missing label', selector: 'zone>1', want: false },
    { reason: 'all requirements must hold', selector: 'app=web,tier=back', want: false },
    { reason: 'prototype keys are not labels', selector: 'constructor', want: false },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = parseLabelSelector(c.selector).matches('labels' in c ? c.labels : labels);
      assert.equal(got, c.want);
    });
  }

  test('nothing matches nothing and is not empty', () => {
    const none = LabelSelector.nothing();
    assert.equal(none.matches({}), false);
    assert.equal(none.empty, false);
    assert.equal(LabelSelector.everything().empty, true);
    assert.equal(parseLabelSelector('a').empty, false);
  });

  test('requiresExactMatch finds the one value a key must have', () => {
    const sel = parseLabelSelector('app=web,tier in (a),zone in (a,b),x!=y');
    assert.equal(sel.requiresExactMatch('app'), 'web');
    assert.equal(sel.requiresExactMatch('tier'), 'a');
    assert.equal(sel.requiresExactMatch('zone'), undefined);
    assert.equal(sel.requiresExactMatch('x'), undefined);
  });

  test('labelSelectorFromSet requires every pair', () => {
    const sel = labelSelectorFromSet({ b: '2', a: '1' });
    assert.equal(sel.toString(), 'a=1,b=2');
    assert.equal(sel.matches({ a: '1', b: '2', c: '3' }), true);
    assert.equal(sel.matches({ a: '1' }), false);
  });
});

describe('object form', () => {
  const cases: Array<{ reason: string; selector: LabelSelectorObject; want: string; matches: Record<string, string>; misses: Record<string, string> }> = [
    { reason: 'empty matches everything', selector: {}, want: '', matches: {}, misses: {} },
    { reason: 'matchLabels are equalities', selector: { matchLabels: { app: 'web' } }, want: 'app=web', matches: { app: 'web' }, misses: { app: 'db' } },
    {
      reason: 'expressions of every operator',
      selector: {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['front', 'back'] },
          { key: 'env', operator: 'NotIn', values: ['qa'] },
          { key: 'owner', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist', values: [] },
        ],
      },
      want: 'app=web,env notin (qa),!legacy,owner,tier in (back,front)',
      matches: { app: 'web', tier: 'back', owner: 'me' },
      misses: { app: 'web', tier: 'back', owner: 'me', legacy: 'x' },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const sel = labelSelectorFromObject(c.selector);
      assert.equal(formatLabelSelector(c.selector), c.want);
      assert.equal(sel.matches(c.matches), true);
      if (Object.keys(c.misses).length) assert.equal(sel.matches(c.misses), false);
      assert.equal(parseLabelSelector(c.want).toString(), c.want);
    });
  }

  test('a missing selector matches nothing, as in Kubernetes', () => {
    assert.equal(labelSelectorFromObject(undefined).matches({}), false);
    assert.equal(labelSelectorFromObject(null).matches({ a: 'b' }), false);
  });

  const invalid: Array<{ reason: string; selector: unknown; want: Array<{ field: string; reason: string; message: RegExp }> }> = [
    {
      reason: 'In without values',
      selector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      want: [
        {
          field: 'spec.selector.matchExpressions[0].values',
          reason: 'FieldValueRequired',
          message: /^Required value: must be specified when `operator` is 'In' or 'NotIn'$/,
        },
      ],
    },
    {
      reason: 'Exists with values',
      selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      want: [
        {
          field: 'spec.selector.matchExpressions[0].values',
          reason: 'FieldValueForbidden',
          message: /^Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'$/,
        },
      ],
    },
    {
      reason: 'an unknown operator',
      selector: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      want: [
        { field: 'spec.selector.matchExpressions[0].operator', reason: 'FieldValueInvalid', message: /^Invalid value: "Gt": not a valid selector operator$/ },
      ],
    },
    {
      reason: 'a bad key and a bad value',
      selector: { matchExpressions: [{ key: 'a b', operator: 'In', values: ['ok', 'not ok'] }] },
      want: [
        { field: 'spec.selector.matchExpressions[0].key', reason: 'FieldValueInvalid', message: /^Invalid value: "a b": name part/ },
        { field: 'spec.selector.matchExpressions[0].values[1]', reason: 'FieldValueInvalid', message: /^Invalid value: "not ok": a valid label/ },
      ],
    },
    {
      reason: 'a bad matchLabels value',
      selector: { matchLabels: { a: '!' } },
      want: [{ field: 'spec.selector.matchLabels', reason: 'FieldValueInvalid', message: /^Invalid value: "!": a valid label/ }],
    },
    {
      reason: 'matchExpressions that is not a list',
      selector: { matchExpressions: { key: 'a' } },
      want: [{ field: 'spec.selector.matchExpressions', reason: 'FieldValueTypeInvalid', message: /must be a list of requirements/ }],
    },
  ];
  for (const c of invalid) {
    test(`validateLabelSelector reports ${c.reason}`, () => {
      const got = validateLabelSelector(c.selector, 'spec.selector');
      assert.equal(got.length, c.want.length, JSON.stringify(got));
      c.want.forEach((w, i) => {
        assert.equal(got[i].field, w.field);
        assert.equal(got[i].reason, w.reason);
        assert.match(got[i].message, w.message);
      });
      assert.throws(
        () => labelSelectorFromObject(c.selector as LabelSelectorObject),
        (err: unknown) => isApiError(err) && err.code === 400 && err.message.startsWith('invalid label selector: ') && !!err.status.details?.causes?.length,
      );
    });
  }
});

describe('properties', () => {
  const key = fc.constantFrom('app', 'tier', 'conductor.io/pool', 'x');
  const value = fc.constantFrom('', 'a', 'b', 'web', '1', '20');
  const requirement = fc.oneof(
    fc.tuple(key, fc.constantFrom('=', '==', '!='), value).map(([k, op, v]) => `${k}${op}${v}`),
    fc.tuple(key, fc.constantFrom('in', 'notin'), fc.array(value, { minLength: 1, maxLength: 3 })).map(([k, op, vs]) => `${k} ${op} (${vs.join(',') || ','})`),
    key,
    key.map((k) => `!${k}`),
    fc
      .tuple(
        key,
        fc.constantFrom('>', '<'),
        fc
          .integer({ min: -5, max: 30 })
          .map(String)
          .filter((v) => !v.startsWith('-')),
      )
      .map(([k, op, v]) => `${k}${op}${v}`),
  );
  const selector = fc.array(requirement, { maxLength: 5 }).map((rs) => rs.join(','));
  const labels = fc.dictionary(key, value, { maxKeys: 4 });

  test('the string form parses back to a selector with the same string and the same matches', () => {
    fc.assert(
      fc.property(selector, fc.array(labels, { maxLength: 5 }), (s, sets) => {
        const sel = parseLabelSelector(s);
        const again = parseLabelSelector(sel.toString());
        assert.equal(again.toString(), sel.toString());
        for (const l of sets) assert.equal(again.matches(l), sel.matches(l));
      }),
    );
  });

  test('a selector matches exactly when each requirement alone matches', () => {
    fc.assert(
      fc.property(fc.array(requirement, { maxLength: 5 }), labels, (reqs, l) => {
        const all = parseLabelSelector(reqs.join(',')).matches(l);
        assert.equal(
          all,
          reqs.every((r) => parseLabelSelector(r).matches(l)),
        );
      }),
    );
  });

  test('a label set always matches the selector built from it', () => {
    fc.assert(fc.property(labels, (l) => assert.equal(labelSelectorFromSet(l).matches(l), true)));
  });

  test('the parser never throws anything but a 400 ApiError', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', '=', '!', '(', ')', ',', ' ', 'in', 'notin', '>', '<', '1', '-', '/') }), (s) => {
        try {
          parseLabelSelector(s);
        } catch (err) {
          assert.ok(isApiError(err) && err.code === 400, String(err));
        }
      }),
    );
  });
});
