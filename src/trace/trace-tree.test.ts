import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiRefs } from '../apis/index.js';
import { traceRefs } from './trace-tree.js';

test('the kinds the trace reads are spelled as the catalog defines them (the tree cannot import the catalog: it is bundled for the browser)', () => {
  assert.deepEqual(traceRefs.resourceclasses, apiRefs.resourceclasses);
  assert.deepEqual(traceRefs.providers, apiRefs.providers);
});
