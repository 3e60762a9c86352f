import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exactConnectionKeys } from './connection-keys.js';

test('exactConnectionKeys keeps exactly the keys asked for', () => {
  assert.deepEqual(exactConnectionKeys('Q', ['queue', 'endpoint'], { queue: 'q', endpoint: 'e', accountKey: 'never handed out' }), {
    queue: 'q',
    endpoint: 'e',
  });
  assert.deepEqual(exactConnectionKeys('Q', ['queue'], { queue: '' }), { queue: '' }, 'an empty value is a value');
});

test('exactConnectionKeys names the kind and the missing key', () => {
  assert.throws(
    () => exactConnectionKeys('StorageQueue', ['queue', 'endpoint'], { queue: 'q' }),
    /^Error: StorageQueue published no endpoint: cannot write the claim's Secret$/,
  );
});
