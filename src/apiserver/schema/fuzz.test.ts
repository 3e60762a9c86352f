import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../registry/resource-type.js';
import { compileSchema, validateStructuralSchema } from './index.js';

/** Arbitrary schema-shaped values: real keywords with plausible and implausible values. */
const scalarKeywords = {
  type: fc.constantFrom('object', 'array', 'string', 'integer', 'number', 'boolean', 'null', 'weird', 7),
  format: fc.constantFrom('date-time', 'uuid', 'int32', 'duration', 'byte', 'nope'),
};

const schemas = fc.letrec<{ schema: Record<string, unknown>; node: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof({ maxDepth: 3, depthSize: 'small' }, fc.record(scalarKeywords, { requiredKeys: [] }), tie('node')),
  node: fc.record(
    {
      ...scalarKeywords,
      properties: fc.dictionary(fc.constantFrom('a', 'b', 'metadata', 'apiVersion', 'kind', 'max-size'), tie('schema'), { maxKeys: 2 }),
      items: tie('schema'),
      additionalProperties: fc.oneof(fc.boolean(), tie('schema')),
      anyOf: fc.array(tie('schema'), { maxLength: 2 }),
      required: fc.array(fc.constantFrom('a', 'b', 'metadata')),
      nullable: fc.boolean(),
      enum: fc.array(fc.jsonValue(), { maxLength: 3 }),
      default: fc.jsonValue(),
      minimum: fc.oneof(fc.integer(), fc.constant('x')),
      maxLength: fc.oneof(fc.nat(5), fc.constant(-1)),
      pattern: fc.constantFrom('^[a-z]+$', '([', '(?i)x', '\\pL'),
      'x-kubernetes-int-or-string': fc.boolean(),
      'x-kubernetes-preserve-unknown-fields': fc.boolean(),
      'x-kubernetes-embedded-resource': fc.boolean(),
      'x-kubernetes-list-type': fc.constantFrom('atomic', 'set', 'map', 'bad'),
      'x-kubernetes-list-map-keys': fc.array(fc.constantFrom('a', 'b')),
      'x-kubernetes-map-type': fc.constantFrom('atomic', 'granular'),
      'x-kubernetes-validations': fc.array(
        fc.record(
          {
            rule: fc.constantFrom('self == self', 'self.a > 1', 'bad (', 'self == oldSelf', 'has(self.a)', 'self.size() > 0', ''),
            message: fc.constantFrom('m', ' ', 'a\nb'),
            messageExpression: fc.constantFrom('"x"', 'self', '('),
            fieldPath: fc.constantFrom('.a', '.nosuch', "['b']"),
            optionalOldSelf: fc.boolean(),
            reason: fc.constantFrom('FieldValueForbidden', 'Nope'),
          },
          { requiredKeys: ['rule'] },
        ),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: [] },
  ),
}));

describe('robustness on arbitrary schemas', () => {
  test('compileSchema, validate, prune, applyDefaults and validateStructuralSchema never throw', () => {
    fc.assert(
      fc.property(schemas.schema, fc.jsonValue(), fc.jsonValue(), (schema, a, b) => {
        const s = schema as JSONSchemaProps;
        assert.ok(Array.isArray(validateStructuralSchema(s, 'schema')));
        const compiled = compileSchema(s, { group: 'example.com', kind: 'Fuzz' });
        const o = structuredClone(a);
        assert.ok(Array.isArray(compiled.validate(o, b)));
        compiled.applyDefaults(o);
        assert.ok(Array.isArray(compiled.unknownFields(o)));
        assert.ok(Array.isArray(compiled.prune(o)));
      }),
      { numRuns: 200 },
    );
  });
});
