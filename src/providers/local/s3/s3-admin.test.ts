import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeXmlText, xmlValues } from './s3-admin.js';

describe('XML helpers', () => {
  test('xmlValues returns each element\'s text in order, decoded', () => {
    const xml = '<R><Contents><Key>a &amp; b.txt</Key></Contents><Contents><Key>x/&lt;y&gt;</Key></Contents><IsTruncated>false</IsTruncated></R>';
    assert.deepEqual(xmlValues(xml, 'Key'), ['a & b.txt', 'x/<y>']);
    assert.deepEqual(xmlValues(xml, 'IsTruncated'), ['false']);
    assert.deepEqual(xmlValues(xml, 'Missing'), []);
  });

  const cases = [
    { reason: 'named entities', input: '&quot;&apos;&amp;', want: '"\'&' },
    { reason: 'decimal and hex references', input: '&#65;&#x42;&#x1F600;', want: 'AB😀' },
    { reason: 'unknown entities stay as they are', input: '&nbsp;', want: '&nbsp;' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(decodeXmlText(c.input), c.want));
});
