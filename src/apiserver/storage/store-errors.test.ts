/**
 * What a store's error becomes at the API: an unreachable backend (etcd down) is a 503 with
 * Retry-After, never an undefined error or a 500.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../../machinery/errors.js';
import { StoreError } from '../../store/types.js';
import type { ResourceType } from '../registry/resource-type.js';
import { mapStoreError } from './object-store.js';

test('an unavailable store is 503 ServiceUnavailable with Retry-After, naming the cause', () => {
  const rt = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' } as unknown as ResourceType;
  const mapped = mapStoreError(new StoreError('unavailable', 'no etcd member answers (127.0.0.1:2379: ECONNREFUSED)'), rt, 'x');
  assert.ok(isApiError(mapped));
  assert.equal(mapped.code, 503);
  assert.equal(mapped.reason, 'ServiceUnavailable');
  assert.equal(mapped.status.details?.retryAfterSeconds, 1);
  assert.match(mapped.message, /storage is unavailable: no etcd member answers/);
});
