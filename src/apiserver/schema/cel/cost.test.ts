/**
 * CEL cost estimation at CRD validation, checked against figures Kubernetes' own validator gives:
 * the largest maxItems it accepts for `self.all(x, x.contains('gpu'))` at four maxLengths (a
 * published measurement of apiextensions' ValidateCustomResourceDefinition), and the 7.1x a
 * Kubernetes 1.36 API server reported for the rule that kept three of Conductor's CRDs off a
 * cluster (issue 12). Then the shapes kube refuses: nested comprehensions over unbounded lists,
 * unbounded maps, expensive messageExpressions, and a schema whose rules together pass the
 * per-CRD budget.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '../../registry/resource-type.js';
import { validateStructuralSchema } from '../structural.js';
import { costErrorMessage } from './cost.js';

const PATH = 'spec.versions[0].schema.openAPIV3Schema';

/** A root schema with `spec.<name>` set to the given schema. */
function withSpecField(name: string, field: JSONSchemaProps): JSONSchemaProps {
  return { type: 'object', properties: { spec: { type: 'object', properties: { [name]: field } } } };
}

const messages = (schema: JSONSchemaProps) => validateStructuralSchema(schema, PATH).map((c) => `${c.field}: ${c.message}`);

describe('CEL cost estimation of a CRD schema, as Kubernetes estimates it', () => {
  const tags = (maxItems: number, maxLength: number) =>
    withSpecField('tags', {
      type: 'array',
      maxItems,
      items: { type: 'string', maxLength },
      'x-kubernetes-validations': [{ rule: "self.all(x, x.contains('gpu'))" }],
    });
  for (const [maxLength, largest] of [
    [16, 909_090],
    [63, 333_333],
    [253, 94_339],
    [1024, 24_154],
  ]) {
    test(`all(contains) on strings of maxLength ${maxLength}: maxItems ${largest} is accepted, ${largest + 1} refused (as by Kubernetes)`, () => {
      assert.deepEqual(messages(tags(largest, maxLength)), []);
      assert.deepEqual(messages(tags(largest + 1, maxLength)), [
        `${PATH}.properties[spec].properties[tags].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 1.0000${maxLength === 16 ? '00' : maxLength === 63 ? '02' : maxLength === 253 ? '04' : '17'}x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      ]);
    });
  }

  test("a rule on each item of an unbounded list: the 7.1x a Kubernetes 1.36 API server gave for Conductor's old load balancer targets", () => {
    const targets = (maxItems?: number): JSONSchemaProps =>
      withSpecField('targets', {
        type: 'array',
        ...(maxItems ? { maxItems } : {}),
        items: {
          type: 'object',
          properties: { address: { type: 'string', maxLength: 259 }, claimRef: { type: 'object' }, serviceRef: { type: 'object' } },
          'x-kubernetes-validations': [
            { rule: '[has(self.address), has(self.claimRef), has(self.serviceRef)].filter(x, x).size() == 1', message: 'exactly one' },
          ],
        },
      });
    const got = messages(targets());
    assert.equal(
      got[0],
      `${PATH}.properties[spec].properties[targets].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 7.1x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    );
    assert.deepEqual(messages(targets(64)), [], 'bounded by maxItems it is accepted');
  });

  test('an unbounded list with a nested all() is refused, and accepted once lists and strings are bounded', () => {
    const names = (bounds: { maxItems?: number; maxLength?: number }) =>
      withSpecField('names', {
        type: 'array',
        ...(bounds.maxItems ? { maxItems: bounds.maxItems } : {}),
        items: { type: 'string', ...(bounds.maxLength ? { maxLength: bounds.maxLength } : {}) },
        'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y || !x.startsWith(y)))' }],
      });
    assert.deepEqual(messages(names({})), [
      `${PATH}.properties[spec].properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${PATH}.properties[spec].properties[names].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${PATH}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
    assert.deepEqual(messages(names({ maxItems: 100, maxLength: 63 })), []);
  });

  test('a rule on the values of an unbounded map runs once per entry that fits in a request', () => {
    const labels = (maxProperties?: number) =>
      withSpecField('labels', {
        type: 'object',
        ...(maxProperties ? { maxProperties } : {}),
        additionalProperties: { type: 'string', maxLength: 63, 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')" }] },
      });
    assert.match(
      messages(labels())[0],
      /properties\[labels\]\.additionalProperties\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of/,
    );
    assert.deepEqual(messages(labels(64)), []);
  });

  test('a messageExpression is estimated on its own (not times the cardinality)', () => {
    const schema = withSpecField('note', {
      type: 'string',
      'x-kubernetes-validations': [{ rule: 'self.size() < 10', messageExpression: "self.split(',').map(x, x + x).join('-')" }],
    });
    assert.match(
      messages(schema)[0],
      /properties\[note\]\.x-kubernetes-validations\[0\]\.messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x/,
    );
  });

  test('rules each within budget but together over the per-CRD budget: each that weighs is named, then the total', () => {
    // Each rule: 23,000 items × (4 + ceil(0.1 × 4·1000 bytes)) ≈ 9.3M, under 10M; eleven of them ≈ 102M, over 100M.
    const rule = { rule: "self.all(x, x.contains('a'))" };
    const fields: Record<string, JSONSchemaProps> = {};
    for (let i = 0; i < 11; i++)
      fields[`f${i}`] = { type: 'array', maxItems: 23_000, items: { type: 'string', maxLength: 1000 }, 'x-kubernetes-validations': [rule] };
    const got = messages({ type: 'object', properties: { spec: { type: 'object', properties: fields } } });
    assert.equal(got.filter((m) => /contributed to estimated rule cost total exceeding cost limit/.test(m)).length, 11);
    assert.ok(!got.some((m) => /estimated rule cost exceeds budget/.test(m)), 'no single rule is over its own budget');
    assert.match(
      got[got.length - 1],
      new RegExp(
        `^${PATH.replace(/[[\].]/g, '\\$&')}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1\\.0\\d+x`,
      ),
    );
  });

  test('the factor is worded as Kubernetes words it', () => {
    const tail = ' (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
    assert.equal(costErrorMessage('estimated rule cost', 12_000_000, 10_000_000), `estimated rule cost exceeds budget by factor of 1.200000x${tail}`);
    assert.equal(costErrorMessage('estimated rule cost', 71_000_000, 10_000_000), `estimated rule cost exceeds budget by factor of 7.1x${tail}`);
    assert.equal(costErrorMessage('estimated rule cost', 2_000_000_000, 10_000_000), `estimated rule cost exceeds budget by factor of more than 100x${tail}`);
  });
});
