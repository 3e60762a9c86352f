import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errors } from './errors.js';

test('Status details leave out what is empty, as kube encodes them (a core resource has no group)', () => {
  const notFound = errors.notFound({ group: '', resource: 'configmaps' }, 'nope');
  assert.deepEqual(notFound.status.details, { name: 'nope', kind: 'configmaps' });
  const grouped = errors.notFound({ group: 'pc.example.io', resource: 'gadgets' }, 'g');
  assert.deepEqual(grouped.status.details, { name: 'g', group: 'pc.example.io', kind: 'gadgets' });
});
