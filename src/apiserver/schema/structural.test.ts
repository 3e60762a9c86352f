import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '../registry/resource-type.js';
import type { StatusCause } from '../../machinery/errors.js';
import { validateStructuralSchema } from './index.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';

function withSpec(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: 'object', properties: { spec } };
}

const sharedDefaultShape: Record<string, JSONSchemaProps> = { n: { type: 'integer' }, tags: { type: 'array', items: { type: 'string', maxLength: 3 } } };

interface Case {
  reason: string;
  schema: JSONSchemaProps;
  want: StatusCause[];
}

const cases: Case[] = [
  {
    reason: 'a well-formed schema passes',
    schema: withSpec({
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'string', enum: ['small', 'large'], default: 'small' },
        replicas: { type: 'integer', minimum: 0, default: 1 },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
      'x-kubernetes-validations': [{ rule: 'self.replicas < 10', message: 'too many' }],
    }),
    want: [],
  },
  {
    reason: 'a field without a type',
    schema: withSpec({ type: 'object', properties: { a: { description: 'no type' } } }),
    want: [
      {
        reason: 'FieldValueRequired',
        field: `${P}.properties[spec].properties[a].type`,
        message: 'Required value: must not be empty for specified object fields',
      },
    ],
  },
  {
    reason: 'array items without a type, and an array without items',
    schema: withSpec({ type: 'object', properties: { a: { type: 'array', items: {} }, b: { type: 'array' } } }),
    want: [
      {
        reason: 'FieldValueRequired',
        field: `${P}.properties[spec].properties[a].items.type`,
        message: 'Required value: must not be empty for specified array items',
      },
      { reason: 'FieldValueRequired', field: `${P}.properties[spec].properties[b].items`, message: 'Required value: must be specified' },
    ],
  },
  {
    reason: 'types inside anyOf are not structural',
    schema: withSpec({ type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } }),
    want: [
      { reason: 'FieldValueForbidden', field: `${P}.properties[spec].properties[a].anyOf[0].type`, message: 'Forbidden: must be empty to be structural' },
      { reason: 'FieldValueForbidden', field: `${P}.properties[spec].properties[a].anyOf[1].type`, message: 'Forbidden: must be empty to be structural' },
      {
        reason: 'FieldValueRequired',
        field: `${P}.properties[spec].properties[a].type`,
        message: 'Required value: must not be empty for specified object fields',
      },
    ],
  },
  {
    reason: 'a field named only under a junctor must also be specified outside it',
    schema: withSpec({ type: 'object', properties: { a: { type: 'string' } }, anyOf: [{ properties: { b: { minLength: 1 } } }] }),
    want: [
      {
        reason: 'FieldValueRequired',
        field: `${P}.properties[spec].properties[b]`,
        message: `Required value: because it is defined in ${P}.properties[spec].anyOf[0].properties[b]`,
      },
    ],
  },
  {
    reason: 'metadata may only restrict name and generateName',
    schema: { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } },
    want: [
      {
        reason: 'FieldValueForbidden',
        field: `${P}.properties[metadata]`,
        message: 'Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
      },
    ],
  },
  {
    reason: 'uniqueItems, $ref and properties next to additionalProperties are rejected',
    schema: withSpec({
      type: 'object',
      properties: {
        a: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        b: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: { type: 'string' } },
        c: { type: 'object', $ref: '#/definitions/x' } as unknown as JSONSchemaProps,
      },
    }),
    want: [
      {
        reason: 'FieldValueForbidden',
        field: `${P}.properties[spec].properties[a].uniqueItems`,
        message: 'Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      },
      {
        reason: 'FieldValueForbidden',
        field: `${P}.properties[spec].properties[b].additionalProperties`,
        message: 'Forbidden: additionalProperties and properties are mutual exclusive',
      },
      { reason: 'FieldValueForbidden', field: `${P}.properties[spec].properties[c].$ref`, message: 'Forbidden: $ref is not supported' },
    ],
  },
  {
    reason: 'list-type map needs keys that are required or defaulted scalar properties',
    schema: withSpec({
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' } } },
        },
        bad: { type: 'string', 'x-kubernetes-list-type': 'set' },
      },
    }),
    want: [
      {
        reason: 'FieldValueRequired',
        field: `${P}.properties[spec].properties[ports].items.properties[name].default`,
        message: 'Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
      },
      {
        reason: 'FieldValueInvalid',
        field: `${P}.properties[spec].properties[bad].type`,
        message: 'Invalid value: "string": must be array if x-kubernetes-list-type is specified',
      },
    ],
  },
  {
    reason: 'an invalid pattern',
    schema: withSpec({ type: 'object', properties: { a: { type: 'string', pattern: '([a-z' } } }),
    want: [
      {
        reason: 'FieldValueInvalid',
        field: `${P}.properties[spec].properties[a].pattern`,
        message: 'Invalid value: "([a-z": must be a valid regular expression, but isn\'t: Invalid regular expression: /([a-z/: Unterminated character class',
      },
    ],
  },
  {
    reason: 'a default of the wrong type',
    schema: withSpec({ type: 'object', properties: { replicas: { type: 'integer', default: 'one' } } }),
    want: [
      {
        reason: 'FieldValueTypeInvalid',
        field: `${P}.properties[spec].properties[replicas].default`,
        message: 'Invalid value: "string": in body must be of type integer: "string"',
      },
    ],
  },
  {
    // The two object defaults share one schema (ajv-schema.ts checksFor compiles it once): each
    // value is still checked on its own, its nested fields named from its own default.
    reason: 'defaults that share a schema are each checked against it, nested fields named',
    schema: withSpec({
      type: 'object',
      properties: {
        low: { type: 'integer', minimum: 1, default: 0 },
        fine: { type: 'integer', minimum: 1, default: 3 },
        nested: { type: 'object', properties: sharedDefaultShape, default: { n: 'x', tags: ['ok', 'toolong'] } },
        again: { type: 'object', properties: sharedDefaultShape, default: { n: 2, tags: ['abcd'] } },
      },
    }),
    want: [
      {
        reason: 'FieldValueInvalid',
        field: `${P}.properties[spec].properties[low].default`,
        message: 'Invalid value: 0: in body should be greater than or equal to 1',
      },
      {
        reason: 'FieldValueTypeInvalid',
        field: `${P}.properties[spec].properties[nested].default.n`,
        message: 'Invalid value: "string": n in body must be of type integer: "string"',
      },
      { reason: 'FieldValueTooLong', field: `${P}.properties[spec].properties[nested].default.tags[1]`, message: 'Too long: may not be more than 3 bytes' },
      { reason: 'FieldValueTooLong', field: `${P}.properties[spec].properties[again].default.tags[0]`, message: 'Too long: may not be more than 3 bytes' },
    ],
  },
  {
    reason: 'a default with fields the schema does not declare',
    schema: withSpec({ type: 'object', properties: { opts: { type: 'object', default: { a: 1, b: 2 }, properties: { a: { type: 'integer' } } } } }),
    want: [
      {
        reason: 'FieldValueInvalid',
        field: `${P}.properties[spec].properties[opts].default`,
        message: 'Invalid value: map[string]interface {}{"a":1, "b":2}: must not have unknown fields',
      },
    ],
  },
  {
    reason: 'a default in top-level metadata',
    schema: { type: 'object', properties: { metadata: { type: 'object', default: {} } } },
    want: [{ reason: 'FieldValueForbidden', field: `${P}.properties[metadata].default`, message: 'Forbidden: must not be set in top-level metadata' }],
  },
  {
    reason: 'a rule with a syntax error',
    schema: withSpec({ type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a >' }] }),
    want: [
      {
        reason: 'FieldValueInvalid',
        field: `${P}.properties[spec].x-kubernetes-validations[0].rule`,
        message:
          'Invalid value: apiextensions.ValidationRule{Rule:"self.a >", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:9: Unexpected token: EOF',
      },
    ],
  },
  {
    reason: 'oldSelf under an atomic list is not correlatable',
    schema: withSpec({
      type: 'object',
      properties: {
        items: {
          type: 'array',
          maxItems: 10,
          items: { type: 'object', properties: { a: { type: 'string', maxLength: 10 } }, 'x-kubernetes-validations': [{ rule: 'self.a == oldSelf.a' }] },
        },
      },
    }),
    want: [
      {
        reason: 'FieldValueInvalid',
        field: `${P}.properties[spec].properties[items].items.x-kubernetes-validations[0].rule`,
        message: `Invalid value: "self.a == oldSelf.a": oldSelf cannot be used on the uncorrelatable portion of the schema within ${P}.properties[spec].properties[items]`,
      },
    ],
  },
  {
    reason: 'an unsupported reason and an invalid fieldPath',
    schema: withSpec({
      type: 'object',
      properties: { a: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: 'true', reason: 'Nope' as 'FieldValueInvalid', fieldPath: '.nosuch' }],
    }),
    want: [
      {
        reason: 'FieldValueNotSupported',
        field: `${P}.properties[spec].x-kubernetes-validations[0].reason`,
        message: 'Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
      },
    ],
  },
  {
    reason: 'an invalid fieldPath',
    schema: withSpec({ type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'true', fieldPath: '.nosuch' }] }),
    want: [
      {
        reason: 'FieldValueInvalid',
        field: `${P}.properties[spec].x-kubernetes-validations[0].fieldPath`,
        message: 'Invalid value: ".nosuch": fieldPath must be a valid path',
      },
    ],
  },
];

describe('validateStructuralSchema', () => {
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual(validateStructuralSchema(c.schema, P), c.want);
    });
  }

  test("a schema checked again (its defaults' checks already compiled) gets the same answer", () => {
    for (const c of cases) assert.deepEqual(validateStructuralSchema(c.schema, P), c.want, c.reason);
  });

  test('a rule that refers to an undeclared field fails to compile', () => {
    const got = validateStructuralSchema(
      withSpec({ type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.b > 1' }] }),
      P,
    );
    assert.equal(got.length, 1);
    assert.equal(got[0].field, `${P}.properties[spec].x-kubernetes-validations[0].rule`);
    assert.match(got[0].message, /compilation failed: ERROR: <input>:1:6: undefined field 'b'/);
  });

  test('a rule must evaluate to a bool', () => {
    const got = validateStructuralSchema(
      withSpec({ type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a + 1' }] }),
      P,
    );
    assert.equal(got.length, 1);
    assert.match(got[0].message, /cel expression must evaluate to a bool/);
  });

  test('a messageExpression must evaluate to a string', () => {
    const got = validateStructuralSchema(
      withSpec({ type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a > 1', messageExpression: 'self.a' }] }),
      P,
    );
    assert.deepEqual(
      got.map((c) => [c.field, /messageExpression must evaluate to a string/.test(c.message)]),
      [[`${P}.properties[spec].x-kubernetes-validations[0].messageExpression`, true]],
    );
  });

  test('never throws on garbage', () => {
    for (const garbage of [null, 5, 'x', [], { type: 5 }, { properties: 'x' }, { items: [1] }, { 'x-kubernetes-validations': 'x' }]) {
      assert.ok(Array.isArray(validateStructuralSchema(garbage as unknown as JSONSchemaProps, P)));
    }
  });
});
