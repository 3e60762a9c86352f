import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isConfigMapKey, isDNS1035Label } from './names.js';

describe('isConfigMapKey', () => {
  const cases = [
    { reason: 'letters, digits, dot, dash and underscore', key: 'App_1.conf-x', valid: true },
    { reason: 'a leading single dot is fine', key: '.dockerconfigjson', valid: true },
    { reason: 'empty is not a key', key: '', valid: false },
    { reason: 'slashes are not allowed', key: 'a/b', valid: false },
    { reason: 'a single dot is not a key', key: '.', valid: false },
    { reason: 'a double dot is not a key', key: '..', valid: false },
    { reason: 'a leading double dot is not allowed', key: '..data', valid: false },
    { reason: '253 characters are allowed', key: 'a'.repeat(253), valid: true },
    { reason: '254 characters are too many', key: 'a'.repeat(254), valid: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(isConfigMapKey(c.key).length === 0, c.valid));

  test('property: any key made of the allowed characters, not starting with .., is valid', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[-_a-zA-Z0-9][-._a-zA-Z0-9]{0,200}$/), (k) => {
        assert.deepEqual(isConfigMapKey(k), []);
      }),
    );
  });
  test('property: any key with another character is invalid', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom(' ', '/', ':', '=', 'é', '\n'), fc.string(), (a, bad, b) => {
        assert.ok(isConfigMapKey(a + bad + b).length > 0);
      }),
    );
  });
});

describe('isDNS1035Label', () => {
  const cases = [
    { reason: 'starts with a letter', value: 'v1beta1', valid: true },
    { reason: 'may not start with a digit', value: '1v', valid: false },
    { reason: 'may not end with a dash', value: 'a-', valid: false },
    { reason: 'no capitals', value: 'Widget', valid: false },
    { reason: 'at most 63 characters', value: 'a'.repeat(64), valid: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(isDNS1035Label(c.value).length === 0, c.valid));

  test('property: valid labels stay valid when a letter is prepended', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]([-a-z0-9]{0,40}[a-z0-9])?$/), (v) => {
        assert.deepEqual(isDNS1035Label(v), []);
        assert.deepEqual(isDNS1035Label(`x${v}`), []);
      }),
    );
  });
});
