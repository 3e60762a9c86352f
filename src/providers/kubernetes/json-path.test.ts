import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonPath } from './json-path.js';

const obj = {
  metadata: { name: 'db', labels: { 'app.kubernetes.io/name': 'pg' } },
  spec: {
    ports: [
      { name: 'pg', port: 5432 },
      { name: 'metrics', port: 9187 },
    ],
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Available', status: 'False' },
      { type: 'Ready', status: 'True' },
    ],
  },
};

describe('parseJsonPath', () => {
  const cases: { path: string; want: unknown[] }[] = [
    { path: '.status.phase', want: ['Running'] },
    { path: '{.status.phase}', want: ['Running'] },
    { path: '$.metadata.name', want: ['db'] },
    { path: ".metadata.labels['app.kubernetes.io/name']", want: ['pg'] },
    { path: '.spec.ports[1].port', want: [9187] },
    { path: '.spec.ports[*].name', want: ['pg', 'metrics'] },
    { path: '.status.conditions[?(@.type=="Ready")].status', want: ['True'] },
    { path: "{.status.conditions[?(@.type!='Ready')].type}", want: ['Available'] },
    { path: '.spec.ports[?(@.port==5432)].name', want: ['pg'] },
    { path: '.status.missing', want: [] },
    { path: '.spec.ports[7]', want: [] },
  ];
  for (const c of cases) {
    test(`${c.path} selects ${JSON.stringify(c.want)}`, () => {
      assert.deepEqual(parseJsonPath(c.path).find(obj), c.want);
    });
  }

  const bad: { path: string; want: RegExp }[] = [
    { path: '', want: /is empty/ },
    { path: 'status.phase', want: /character 1: a path starts with \. or \[/ },
    { path: '.status[', want: /expected an index/ },
    { path: '.status.conditions[?(@.type="Ready")]', want: /expected == or !=/ },
    { path: "{.data['x}", want: /unterminated quoted name/ },
    { path: '{.status.phase', want: /closes with \}/ },
    { path: '.status..phase', want: /expected a field name/ },
  ];
  for (const c of bad) {
    test(`${JSON.stringify(c.path)} does not parse, and the error says where`, () => {
      assert.throws(() => parseJsonPath(c.path), c.want);
    });
  }
});
