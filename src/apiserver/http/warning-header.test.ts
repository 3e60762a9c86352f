import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validateHeaderValue } from 'node:http';
import { warningHeaderValue } from './warning-header.js';

describe('warningHeaderValue', () => {
  test('plain text is quoted as kube sends it', () => {
    assert.equal(warningHeaderValue('spec.region "mars": not served'), '299 - "spec.region \\"mars\\": not served"');
  });

  test('characters outside printable ASCII are written as U+XXXX', () => {
    assert.equal(warningHeaderValue('region "日本"'), '299 - "region \\"U+65E5U+672C\\""');
    assert.equal(warningHeaderValue('é 🚀 \u007f'), '299 - "U+00E9 U+1F680 U+007F"');
  });

  test('any text a client wrote makes a header Node accepts', () => {
    for (const text of ['region "日本"', 'a\nb\r\nc\u0000d\u007fe', 'emoji 🚀', '\u2028\u2029', 'é', '\ud800 lone surrogate']) {
      assert.doesNotThrow(() => validateHeaderValue('Warning', warningHeaderValue(text)), JSON.stringify(text));
    }
  });
});
