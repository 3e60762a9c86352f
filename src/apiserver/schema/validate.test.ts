import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../registry/resource-type.js';
import type { StatusCause } from '../../machinery/errors.js';
import { compileSchema } from './index.js';

/** A root schema with the given spec properties (and optional spec-level extras). */
function withSpec(properties: Record<string, JSONSchemaProps>, spec: Partial<JSONSchemaProps> = {}): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: { type: 'object', properties, ...spec },
    },
  };
}

function obj(spec: unknown, metadata: Record<string, unknown> = { name: 'x' }): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata, spec };
}

function run(schema: JSONSchemaProps, o: unknown, old?: unknown): StatusCause[] {
  return compileSchema(schema, { group: 'example.com', kind: 'Widget' }).validate(o, old);
}

interface Case {
  reason: string;
  schema: JSONSchemaProps;
  obj: unknown;
  want: StatusCause[];
}

const cases: Case[] = [
  {
    reason: 'a valid object has no causes',
    schema: withSpec({ replicas: { type: 'integer' }, name: { type: 'string' } }),
    obj: obj({ replicas: 3, name: 'a' }),
    want: [],
  },
  {
    reason: 'a string where an integer belongs is a type error naming the actual type',
    schema: withSpec({ replicas: { type: 'integer' } }),
    obj: obj({ replicas: 'three' }),
    want: [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.replicas',
        message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      },
    ],
  },
  {
    reason: 'a fraction is not an integer',
    schema: withSpec({ replicas: { type: 'integer' } }),
    obj: obj({ replicas: 1.5 }),
    want: [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.replicas',
        message: 'Invalid value: "number": spec.replicas in body must be of type integer: "number"',
      },
    ],
  },
  {
    reason: 'an integer is a number',
    schema: withSpec({ ratio: { type: 'number' } }),
    obj: obj({ ratio: 2 }),
    want: [],
  },
  {
    reason: 'null is a type error for a field that is not nullable',
    schema: withSpec({ name: { type: 'string' } }),
    obj: obj({ name: null }),
    want: [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.name',
        message: 'Invalid value: "null": spec.name in body must be of type string: "null"',
      },
    ],
  },
  {
    reason: 'nullable allows null, even with an enum',
    schema: withSpec({ name: { type: 'string', nullable: true, enum: ['a'] } }),
    obj: obj({ name: null }),
    want: [],
  },
  {
    reason: 'a missing required field is FieldValueRequired',
    schema: withSpec({ size: { type: 'string' } }, { required: ['size'] }),
    obj: obj({}),
    want: [{ reason: 'FieldValueRequired', field: 'spec.size', message: 'Required value' }],
  },
  {
    reason: 'an enum mismatch lists the supported values',
    schema: withSpec({ size: { type: 'string', enum: ['small', 'large'] } }),
    obj: obj({ size: 'medium' }),
    want: [
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.size',
        message: 'Unsupported value: "medium": supported values: "small", "large"',
      },
    ],
  },
  {
    reason: 'non-string enum values are quoted JSON',
    schema: withSpec({ n: { type: 'integer', enum: [1, 2] } }),
    obj: obj({ n: 3 }),
    want: [{ reason: 'FieldValueNotSupported', field: 'spec.n', message: 'Unsupported value: 3: supported values: "1", "2"' }],
  },
  {
    reason: 'minimum names the bound',
    schema: withSpec({ replicas: { type: 'integer', minimum: 1 } }),
    obj: obj({ replicas: 0 }),
    want: [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.replicas',
        message: 'Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
      },
    ],
  },
  {
    reason: 'exclusive maximum',
    schema: withSpec({ replicas: { type: 'integer', maximum: 10, exclusiveMaximum: true } }),
    obj: obj({ replicas: 10 }),
    want: [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: 10: spec.replicas in body should be less than 10' }],
  },
  {
    reason: 'a float bound prints like Go',
    schema: withSpec({ ratio: { type: 'number', maximum: 0.5 } }),
    obj: obj({ ratio: 0.75 }),
    want: [{ reason: 'FieldValueInvalid', field: 'spec.ratio', message: 'Invalid value: 0.75: spec.ratio in body should be less than or equal to 0.5' }],
  },
  {
    reason: 'multipleOf',
    schema: withSpec({ n: { type: 'integer', multipleOf: 5 } }),
    obj: obj({ n: 7 }),
    want: [{ reason: 'FieldValueInvalid', field: 'spec.n', message: 'Invalid value: 7: spec.n in body should be a multiple of 5' }],
  },
  {
    reason: 'maxLength is FieldValueTooLong',
    schema: withSpec({ name: { type: 'string', maxLength: 3 } }),
    obj: obj({ name: 'abcd' }),
    want: [{ reason: 'FieldValueTooLong', field: 'spec.name', message: 'Too long: may not be more than 3 bytes' }],
  },
  {
    reason: 'minLength',
    schema: withSpec({ name: { type: 'string', minLength: 3 } }),
    obj: obj({ name: 'ab' }),
    want: [{ reason: 'FieldValueInvalid', field: 'spec.name', message: 'Invalid value: "ab": spec.name in body should be at least 3 chars long' }],
  },
  {
    reason: 'pattern quotes the pattern',
    schema: withSpec({ name: { type: 'string', pattern: '^[a-z]+$' } }),
    obj: obj({ name: 'ABC' }),
    want: [{ reason: 'FieldValueInvalid', field: 'spec.name', message: 'Invalid value: "ABC": spec.name in body should match \'^[a-z]+$\'' }],
  },
  {
    reason: 'patterns use RE2 spellings such as a leading (?i)',
    schema: withSpec({ name: { type: 'string', pattern: '(?i)^[a-z]+\\z' } }),
    obj: obj({ name: 'ABC' }),
    want: [],
  },
  {
    reason: 'maxItems is FieldValueTooMany with the actual count',
    schema: withSpec({ tags: { type: 'array', items: { type: 'string' }, maxItems: 1 } }),
    obj: obj({ tags: ['a', 'b'] }),
    want: [{ reason: 'FieldValueTooMany', field: 'spec.tags', message: 'Too many: 2: must have at most 1 item' }],
  },
  {
    reason: 'minItems reports the count',
    schema: withSpec({ tags: { type: 'array', items: { type: 'string' }, minItems: 1 } }),
    obj: obj({ tags: [] }),
    want: [{ reason: 'FieldValueInvalid', field: 'spec.tags', message: 'Invalid value: 0: spec.tags in body should have at least 1 items' }],
  },
  {
    reason: 'maxProperties is FieldValueTooMany',
    schema: withSpec({ labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 } }),
    obj: obj({ labels: { a: 'x', b: 'y' } }),
    want: [{ reason: 'FieldValueTooMany', field: 'spec.labels', message: 'Too many: 2: must have at most 1 item' }],
  },
  {
    reason: 'errors inside lists name the index',
    schema: withSpec({ items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } }),
    obj: obj({ items: [{ name: 'a' }, { name: 'b' }, { name: 5 }] }),
    want: [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.items[2].name',
        message: 'Invalid value: "integer": spec.items[2].name in body must be of type string: "integer"',
      },
    ],
  },
  {
    reason: 'errors inside maps name the key in brackets',
    schema: withSpec({ limits: { type: 'object', additionalProperties: { type: 'integer' } } }),
    obj: obj({ limits: { cpu: 'lots' } }),
    want: [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.limits[cpu]',
        message: 'Invalid value: "string": spec.limits[cpu] in body must be of type integer: "string"',
      },
    ],
  },
  {
    reason: 'int-or-string accepts an integer',
    schema: withSpec({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }),
    obj: obj({ port: 8080 }),
    want: [],
  },
  {
    reason: 'int-or-string accepts a string',
    schema: withSpec({ port: { 'x-kubernetes-int-or-string': true } }),
    obj: obj({ port: 'http' }),
    want: [],
  },
  {
    reason: 'int-or-string rejects anything else with one type error',
    schema: withSpec({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }),
    obj: obj({ port: true }),
    want: [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.port',
        message: 'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      },
    ],
  },
  {
    reason: 'a known format is checked and reported as a type error',
    schema: withSpec({ id: { type: 'string', format: 'uuid' } }),
    obj: obj({ id: 'not-a-uuid' }),
    want: [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.id',
        message: 'Invalid value: "not-a-uuid": spec.id in body must be of type uuid: "not-a-uuid"',
      },
    ],
  },
  {
    reason: 'date-time accepts RFC 3339',
    schema: withSpec({ at: { type: 'string', format: 'date-time' } }),
    obj: obj({ at: '2024-02-29T12:30:00Z' }),
    want: [],
  },
  {
    reason: 'an unknown format is ignored',
    schema: withSpec({ x: { type: 'string', format: 'my-own-format' } }),
    obj: obj({ x: 'anything' }),
    want: [],
  },
  {
    reason: 'a non-string value for a formatted field names the format (kube-openapi quirk)',
    schema: withSpec({ at: { type: 'string', format: 'date-time' } }),
    obj: obj({ at: 5 }),
    want: [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.at',
        message: 'Invalid value: "int64": spec.at in body must be of type date-time: "int64"',
      },
    ],
  },
  {
    reason: 'list-type set rejects duplicates at the later index',
    schema: withSpec({ tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } }),
    obj: obj({ tags: ['a', 'b', 'a'] }),
    want: [{ reason: 'FieldValueDuplicate', field: 'spec.tags[2]', message: 'Duplicate value: "a"' }],
  },
  {
    reason: 'list-type map rejects duplicate keys, quoting the keys like Go',
    schema: withSpec({
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name', 'protocol'],
        items: { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string' }, port: { type: 'integer' } } },
      },
    }),
    obj: obj({
      ports: [
        { name: 'http', protocol: 'TCP', port: 80 },
        { name: 'http', protocol: 'UDP' },
        { name: 'http', protocol: 'TCP', port: 81 },
      ],
    }),
    want: [
      {
        reason: 'FieldValueDuplicate',
        field: 'spec.ports[2]',
        message: 'Duplicate value: map[string]interface {}{"name":"http", "protocol":"TCP"}',
      },
    ],
  },
  {
    reason: 'an atomic list allows duplicates',
    schema: withSpec({ tags: { type: 'array', items: { type: 'string' } } }),
    obj: obj({ tags: ['a', 'a'] }),
    want: [],
  },
  {
    reason: 'an embedded resource needs apiVersion and kind',
    schema: withSpec({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    obj: obj({ template: { spec: {} } }),
    want: [
      { reason: 'FieldValueRequired', field: 'spec.template.apiVersion', message: 'Required value: must not be empty' },
      { reason: 'FieldValueRequired', field: 'spec.template.kind', message: 'Required value: must not be empty' },
    ],
  },
  {
    reason: 'an embedded resource with an empty kind',
    schema: withSpec({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    obj: obj({ template: { apiVersion: 'v1', kind: '' } }),
    want: [{ reason: 'FieldValueInvalid', field: 'spec.template.kind', message: 'Invalid value: "": must not be empty' }],
  },
  {
    reason: 'the root metadata schema may constrain the name',
    schema: {
      ...withSpec({}),
      properties: { ...withSpec({}).properties, metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } } },
    },
    obj: obj({}, { name: 'toolongname' }),
    want: [{ reason: 'FieldValueTooLong', field: 'metadata.name', message: 'Too long: may not be more than 5 bytes' }],
  },
  {
    reason: 'other root metadata constraints are ignored (the server validates ObjectMeta)',
    schema: {
      ...withSpec({}),
      properties: { ...withSpec({}).properties, metadata: { type: 'object', required: ['labels'], properties: { labels: { type: 'integer' } } } },
    },
    obj: obj({}, { name: 'a', labels: { a: 'b' } }),
    want: [],
  },
  {
    reason: 'a value-validation anyOf reports the anyOf and the closest branch',
    schema: withSpec({}, { anyOf: [{ required: ['a'] }, { required: ['b'] }] }),
    obj: obj({}),
    want: [
      { reason: 'FieldValueRequired', field: 'spec.a', message: 'Required value' },
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "": "spec" must validate at least one schema (anyOf)' },
    ],
  },
  {
    reason: 'oneOf with two matching branches',
    schema: withSpec({ a: { type: 'string' }, b: { type: 'string' } }, { oneOf: [{ required: ['a'] }, { required: ['b'] }] }),
    obj: obj({ a: 'x', b: 'y' }),
    want: [
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message: 'Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      },
    ],
  },
  {
    reason: 'a non-object is a type error at the root',
    schema: withSpec({}),
    obj: 'hello',
    want: [{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": in body must be of type object: "string"' }],
  },
];

describe('validate', () => {
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual(run(c.schema, c.obj), c.want);
    });
  }

  test('a blocking error stops CEL rules and says so', () => {
    const schema = withSpec({ n: { type: 'integer' } }, { 'x-kubernetes-validations': [{ rule: 'self.n > 100' }] });
    const got = run(schema, obj({ n: 'x' }));
    assert.equal(got.length, 2);
    assert.equal(got[1].reason, 'FieldValueInvalid');
    assert.match(got[1].message, /some validation rules were not checked because the object was invalid/);
  });

  test('a non-blocking error still runs CEL rules', () => {
    const schema = withSpec({ n: { type: 'integer', minimum: 0 } }, { 'x-kubernetes-validations': [{ rule: 'self.n > 100' }] });
    const got = run(schema, obj({ n: -1 }));
    assert.deepEqual(
      got.map((c) => c.message),
      ['Invalid value: -1: spec.n in body should be greater than or equal to 0', 'Invalid value: "object": failed rule: self.n > 100'],
    );
  });

  // How fast a compiled schema validates is measured by `npm run bench -- --only validate`
  // (bench/scenarios/validate.ts), not asserted here.
  test('a compiled schema is reused: valid and invalid objects alternate without one affecting the next', () => {
    const schema = withSpec(
      {
        replicas: { type: 'integer', minimum: 0 },
        name: { type: 'string', maxLength: 63 },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      },
      { 'x-kubernetes-validations': [{ rule: 'self.replicas < 100' }] },
    );
    const compiled = compileSchema(schema, { group: 'example.com', kind: 'Widget' });
    const good = obj({ replicas: 3, name: 'abc', tags: ['a', 'b'] });
    const bad = obj({ replicas: 300, name: 'abc', tags: ['a', 'a'] });
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(compiled.validate(good), []);
      assert.deepEqual(
        compiled.validate(bad).map((c) => c.field),
        ['spec.tags[1]', 'spec'],
      );
    }
  });
});

describe('validate never throws', () => {
  const schema = withSpec(
    {
      replicas: { type: 'integer', minimum: 0 },
      port: { 'x-kubernetes-int-or-string': true },
      tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      at: { type: 'string', format: 'date-time' },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    },
    {
      'x-kubernetes-validations': [
        { rule: 'self.replicas >= oldSelf.replicas', message: 'no scale down' },
        { rule: 'has(self.tags) ? self.tags.all(t, t.size() < 10) : true' },
        { rule: 'self.free.x == 1' },
      ],
    },
  );
  const compiled = compileSchema(schema, { group: 'example.com', kind: 'Widget' });

  test('on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const causes = compiled.validate(a, b);
        assert.ok(Array.isArray(causes));
        compiled.unknownFields(a);
      }),
      { numRuns: 300 },
    );
  });

  test('on arbitrary specs', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('replicas', 'port', 'tags', 'ports', 'labels', 'at', 'free', 'template', 'x'), fc.jsonValue()), (spec) => {
        const o = obj(spec);
        assert.ok(Array.isArray(compiled.validate(o, obj(spec))));
        compiled.applyDefaults(o);
        compiled.prune(o);
      }),
      { numRuns: 300 },
    );
  });
});
