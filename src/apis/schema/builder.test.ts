import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { s, NON_NEGATIVE_QUANTITY_PATTERN, type Field, type Infer } from './builder.js';
import type { JSONSchemaProps } from '../../machinery/schema-types.js';
import { isQuantity, parseQuantity } from '../../machinery/quantity/index.js';

/** Compile-time equality of two types: `const _: Equal<A, B> = true` fails to compile when they differ. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

describe('schema builders', () => {
  const cases: { reason: string; field: Field<unknown, boolean>; want: JSONSchemaProps }[] = [
    { reason: 'a string with bounds keeps only the keywords given', field: s.string({ minLength: 1 }), want: { type: 'string', minLength: 1 } },
    { reason: 'an enum lists its values', field: s.enumOf(['A', 'B']), want: { type: 'string', enum: ['A', 'B'] } },
    { reason: 'a timestamp is a date-time string', field: s.dateTime(), want: { type: 'string', format: 'date-time' } },
    { reason: 'an integer with bounds', field: s.integer({ minimum: 1, maximum: 9 }), want: { type: 'integer', minimum: 1, maximum: 9 } },
    { reason: 'a boolean', field: s.boolean(), want: { type: 'boolean' } },
    {
      reason: 'a quantity is int-or-string with the structural anyOf idiom, a pattern for strings and a minimum for integers',
      field: s.quantity(),
      want: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: NON_NEGATIVE_QUANTITY_PATTERN, minimum: 0 },
    },
    {
      reason: 'a list map names its keys',
      field: s.array(s.object({ name: s.string() }), { listType: 'map', mapKeys: ['name'] }),
      want: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      },
    },
    { reason: 'a map has additionalProperties', field: s.map(s.integer()), want: { type: 'object', additionalProperties: { type: 'integer' } } },
    {
      reason: 'optional and defaulted properties are not required; the rest are',
      field: s.object({ a: s.string(), b: s.string().optional(), c: s.string().withDefault('x') }),
      want: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string', default: 'x' } },
        required: ['a'],
      },
    },
    {
      reason: 'an object with only optional properties has no required list',
      field: s.object({ a: s.string().optional() }, { mapType: 'atomic' }),
      want: { type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-map-type': 'atomic' },
    },
    { reason: 'freeform objects keep unknown fields', field: s.freeform(), want: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    {
      reason: 'describe and rules add to the schema without dropping what is there',
      field: s.string().describe('d').rules({ rule: 'self != ""' }).rules({ rule: 'size(self) < 5' }),
      want: { type: 'string', description: 'd', 'x-kubernetes-validations': [{ rule: 'self != ""' }, { rule: 'size(self) < 5' }] },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(c.field.schema, c.want));
  }

  test('modifiers return new fields and leave the original unchanged', () => {
    const base = s.string();
    const described = base.describe('x');
    const optional = base.optional();
    assert.deepEqual(base.schema, { type: 'string' });
    assert.equal(base.isOptional, false);
    assert.equal(described.schema.description, 'x');
    assert.equal(optional.isOptional, true);
    assert.equal(base.withDefault('v').isOptional, false, 'a default keeps the TypeScript optionality');
  });
});

describe('inferred TypeScript types', () => {
  test('objects map optional fields to optional properties and enums to unions', () => {
    const _spec = s.object({
      size: s.integer(),
      color: s.enumOf(['red', 'blue']).optional(),
      tags: s.array(s.string()).optional(),
      limits: s.map(s.quantity()).optional(),
      mode: s.enumOf(['A', 'B']).withDefault('A'),
      extra: s.freeform().optional(),
    });
    type Got = Infer<typeof _spec>;
    type Want = {
      size: number;
      color?: 'red' | 'blue';
      tags?: string[];
      limits?: Record<string, string | number>;
      mode: 'A' | 'B';
      extra?: import('../../machinery/object.js').JsonObject;
    };
    const same: Equal<Got, Want> = true;
    assert.equal(same, true);
    // A value of the inferred type is accepted by the compiler; a wrong one is not.
    const ok: Got = { size: 1, mode: 'B' };
    // @ts-expect-error -- color must be one of the enum's values
    const bad: Got = { size: 1, mode: 'A', color: 'green' };
    assert.ok(ok && bad);
  });
});

describe('quantity pattern', () => {
  const re = new RegExp(NON_NEGATIVE_QUANTITY_PATTERN);
  const digits = fc.stringMatching(/^[0-9]{1,6}$/);
  const number = fc.oneof(
    digits,
    fc.tuple(digits, fc.stringMatching(/^[0-9]{0,4}$/)).map(([i, f]) => `${i}.${f}`),
    digits.map((f) => `.${f}`),
  );
  const suffix = fc.oneof(
    fc.constantFrom('', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'),
    fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 99 })).map(([e, sign, n]) => `${e}${sign}${n}`),
  );

  test('every non-negative quantity of the grammar matches and parses', () => {
    fc.assert(
      fc.property(fc.constantFrom('', '+'), number, suffix, (sign, n, suf) => {
        const q = `${sign}${n}${suf}`;
        assert.ok(re.test(q), `${q} should match`);
        assert.ok(isQuantity(q), `${q} should parse`);
      }),
    );
  });

  test('whatever the pattern accepts parses as a non-negative quantity', () => {
    const text = fc.stringMatching(/^[-+0-9.eEinumkKMGTP ]{1,8}$/);
    fc.assert(
      fc.property(text, (q) => {
        if (!re.test(q)) return;
        assert.ok(parseQuantity(q).sign() >= 0, `${q} matched but is negative`);
      }),
    );
  });

  const rejected: { reason: string; input: string }[] = [
    { reason: 'negative amounts are not capacities', input: '-1Gi' },
    { reason: 'a unit alone has no number', input: 'Gi' },
    { reason: 'lower-case binary suffixes do not exist', input: '1gi' },
    { reason: 'K is not a decimal suffix (k is)', input: '1K' },
    { reason: 'two suffixes', input: '1Gim' },
    { reason: 'surrounding space', input: ' 1Gi' },
    { reason: 'an empty string', input: '' },
    { reason: 'a lone dot', input: '.' },
  ];
  for (const c of rejected) {
    test(`rejects ${JSON.stringify(c.input)}: ${c.reason}`, () => assert.equal(re.test(c.input), false));
  }
});
