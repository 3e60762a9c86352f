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
import { CostLimitExceeded, metered, PER_CALL_LIMIT, RuntimeCostMeter, sizeCost } from './runtime-cost.js';

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
