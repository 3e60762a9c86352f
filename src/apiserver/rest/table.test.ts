import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { evalJsonPath, toJsonPathPlus, toTable } from './table.js';
import { mysqlInstance } from '../docs/test-fixtures.js';

describe('printer-column JSONPath', () => {
  const obj = {
    metadata: { name: 'x', annotations: { 'conductor.io/external-name': 'ext-1' }, labels: { 'app.kubernetes.io/name': 'web' } },
    spec: { items: [{ name: 'first' }, { name: 'second' }] },
    status: {
      phase: 'Bound',
      conditions: [
        { type: 'Synced', status: 'False' },
        { type: 'Ready', status: 'True' },
      ],
    },
  };
  const cases: { reason: string; path: string; rewritten: string; value: unknown }[] = [
    { reason: 'a plain path', path: '.status.phase', rewritten: '$.status.phase', value: 'Bound' },
    {
      reason: 'an escaped dot in a key',
      path: '.metadata.annotations.conductor\\.io/external-name',
      rewritten: "$.metadata.annotations['conductor.io/external-name']",
      value: 'ext-1',
    },
    {
      reason: 'several escaped dots',
      path: '.metadata.labels.app\\.kubernetes\\.io/name',
      rewritten: "$.metadata.labels['app.kubernetes.io/name']",
      value: 'web',
    },
    {
      reason: 'a filter expression',
      path: '.status.conditions[?(@.type=="Ready")].status',
      rewritten: '$.status.conditions[?(@.type=="Ready")].status',
      value: 'True',
    },
    { reason: 'an index', path: '.spec.items[1].name', rewritten: '$.spec.items[1].name', value: 'second' },
    { reason: 'braces around the path', path: '{.metadata.name}', rewritten: '$.metadata.name', value: 'x' },
    { reason: 'a missing field', path: '.status.nothing', rewritten: '$.status.nothing', value: undefined },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (!c.path.startsWith('{')) assert.equal(toJsonPathPlus(c.path), c.rewritten);
      assert.equal(evalJsonPath(c.path, obj), c.value);
    });
  }
});

describe('table cells', () => {
  const rt = { ...mysqlInstance(), printerColumns: [{ name: 'Terminating', type: 'date' as const, jsonPath: '.metadata.deletionTimestamp' }] };
  const now = Date.parse('2026-01-01T00:10:00Z');
  const row = (metadata: Record<string, unknown>) => toTable(rt, [{ apiVersion: 'v1', kind: 'X', metadata }], {}, 'None', now).rows[0].cells;

  test('a date column shows the time since its timestamp, and <none> when the object has none (like any empty cell)', () => {
    assert.deepEqual(row({ name: 'going', creationTimestamp: '2026-01-01T00:00:00Z', deletionTimestamp: '2026-01-01T00:09:30Z' }), ['going', '30s', '10m']);
    assert.deepEqual(row({ name: 'staying', creationTimestamp: '2026-01-01T00:00:00Z' }), ['staying', '<none>', '10m']);
  });

  test('AGE of an object without a creation time is <unknown>, as Kubernetes prints it', () => {
    assert.deepEqual(row({ name: 'odd' }), ['odd', '<none>', '<unknown>']);
  });
});
