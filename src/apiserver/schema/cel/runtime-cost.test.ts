/**
 * The runtime cost of rule evaluations: the counter itself (what a node and a size cost, a
 * comprehension charged per element it visits, the limit enforced even where CEL absorbs a
 * branch's error), and a rule that the static estimate accepts but that goes over the
 * per-call limit on an actual object, refused as Kubernetes refuses it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Environment } from '@marcbachmann/cel-js';
import type { JSONSchemaProps } from '../../registry/resource-type.js';
import { compileSchema, validateStructuralSchema } from '../index.js';
import { CostBudget, CostLimitExceeded, metered, PER_CALL_LIMIT, PER_OBJECT_BUDGET, RuntimeCostMeter, sizeCost } from './runtime-cost.js';

const env = new Environment().registerVariable('self', 'dyn');

/** costOf evaluates `expr` with self bound and returns what the meter counted. */
function costOf(expr: string, self: unknown, limit = PER_CALL_LIMIT): { cost: number; exceeded: boolean; outcome: unknown } {
  const program = env.parse(expr);
  const meter = new RuntimeCostMeter(limit);
  const outcome = metered(meter, program, { self });
  return { cost: meter.cost, exceeded: meter.exceeded, outcome };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => BigInt(i));

describe('RuntimeCostMeter', () => {
  test('a literal costs nothing; an identifier, a field and an operator 1 each', () => {
    assert.equal(costOf('true', null).cost, 0);
    assert.equal(costOf('self', 1n).cost, 1);
    assert.equal(costOf('self.a == 1', { a: 1n }).cost, 3);
  });

  test('a comprehension is charged per element it visits: ten times the items, about ten times the cost', () => {
    const small = costOf('self.all(x, x >= 0)', range(100)).cost;
    const large = costOf('self.all(x, x >= 0)', range(1000)).cost;
    assert.ok(small >= 100, `at least one per element: ${small}`);
    assert.ok(large >= 9 * small && large <= 11 * small, `${small} → ${large}`);
  });

  test('string operations cost a tenth of the string they traverse, regexes that times a quarter of the pattern', () => {
    const short = costOf("self.contains('x')", 'a'.repeat(10)).cost;
    const long = costOf("self.contains('x')", 'a'.repeat(10_000)).cost;
    assert.equal(long - short, 1000 - 1);
    const node = { op: 'rcall', args: ['matches', { op: 'id' }, [{ op: 'value' }]] };
    const operands = new Map<unknown, unknown>([
      [(node.args as unknown[])[1], 'a'.repeat(99)],
      [((node.args as unknown[])[2] as unknown[])[0], 'abcd'],
    ]);
    assert.equal(
      sizeCost(node, true, (n) => operands.get(n)),
      10 * 1,
    );
  });

  test('over the limit the evaluation stops with CostLimitExceeded, even where || would absorb the error', () => {
    const r = costOf('self.all(x, x >= 0) || true', range(1000), 500);
    assert.equal(r.exceeded, true);
    assert.ok(r.cost <= 502, `stopped at the limit, not after the whole list: ${r.cost}`);
    const thrown = costOf('self.all(x, x >= 0)', range(1000), 500).outcome as { error?: unknown };
    assert.ok(thrown.error instanceof CostLimitExceeded);
  });

  test('outside a metered evaluation nothing is counted and nothing is stopped', () => {
    assert.equal(env.parse('self.all(x, x >= 0)')({ self: range(10_000) }), true);
  });
});

describe('a rule cheap by estimate that exceeds the per-call limit at runtime', () => {
  // Each pair of a list of at most 700 integers: the estimate stays under the per-rule budget
  // (10,000,000), but 700 × 700 pairs cost more than the per-call limit (1,000,000) when run.
  const rule = 'self.all(x, self.all(y, x <= y || x > y))';
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: { values: { type: 'array', maxItems: 700, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule }] } },
      },
    },
  };
  const validate = (n: number) =>
    compileSchema(schema, { group: 'example.com', kind: 'Widget' }).validate({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { values: Array.from({ length: n }, (_, i) => i) },
    });

  test('the CRD is accepted by the static estimate', () => {
    assert.deepEqual(validateStructuralSchema(schema, 'spec.versions[0].schema.openAPIV3Schema'), []);
  });
  test('50 items pass', () => {
    assert.deepEqual(validate(50), []);
  });
  test('700 items: refused at the field, naming the rule, as Kubernetes words it', () => {
    assert.deepEqual(validate(700), [
      { reason: 'FieldValueInvalid', field: 'spec.values', message: `Invalid value: "array": call cost exceeds limit for rule: ${rule}` },
    ]);
  });
});

describe('CostBudget', () => {
  test('spends while an evaluation fits what remains; the first that does not exhausts it for good', () => {
    const budget = new CostBudget(100);
    assert.equal(budget.spend(60), true);
    assert.equal(budget.spend(40), true);
    assert.equal(budget.remaining, 0);
    assert.equal(budget.spend(1), false);
    assert.equal(budget.exhausted, true);
    assert.equal(budget.spend(0), false, 'nothing runs after exhaustion');
  });
});

describe('the per-object budget: rules each under the per-call limit whose sum is over 10,000,000', () => {
  // Three rules on each item's list of at most 200 integers, each costing a few hundred
  // thousand per item: every evaluation is under the per-call limit (1,000,000) and the CRD
  // passes the static estimate, but on 20 items their sum is over the per-object budget.
  const rules = ['x <= y || x > y', 'x < y || x >= y', 'x == y || x != y'].map((body) => ({ rule: `self.all(x, self.all(y, ${body}))` }));
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            maxItems: 20,
            items: {
              type: 'object',
              properties: { values: { type: 'array', maxItems: 200, items: { type: 'integer' }, 'x-kubernetes-validations': rules } },
            },
          },
        },
      },
    },
  };
  const validate = (items: number) =>
    compileSchema(schema, { group: 'example.com', kind: 'Grid' }).validate({
      apiVersion: 'example.com/v1',
      kind: 'Grid',
      metadata: { name: 'g' },
      spec: { items: Array.from({ length: items }, () => ({ values: Array.from({ length: 200 }, (_, i) => i) })) },
    });

  test('one evaluation is under the per-call limit', () => {
    const one = costOf(rules[0].rule, range(200)).cost;
    assert.ok(one < PER_CALL_LIMIT, `${one}`);
    assert.ok(20 * 3 * one > PER_OBJECT_BUDGET, `20 items × 3 rules × ${one} is over the per-object budget`);
  });
  test('the CRD is accepted by the static estimate', () => {
    assert.deepEqual(validateStructuralSchema(schema, 'spec.versions[0].schema.openAPIV3Schema'), []);
  });
  test('a few items pass', () => {
    assert.deepEqual(validate(4), []);
  });
  test('20 items: refused once the budget runs out, at the field of the evaluation that did not fit, and no further rule runs', () => {
    const causes = validate(20);
    assert.equal(causes.length, 1, JSON.stringify(causes));
    assert.equal(causes[0].reason, 'FieldValueInvalid');
    assert.match(causes[0].field ?? '', /^spec\.items\[\d+\]\.values$/);
    assert.equal(causes[0].message, 'Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run');
  });
});
