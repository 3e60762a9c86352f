import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../../machinery/object.js';
import { configureS3Server, matchS3Server } from './matchers.js';
import type { S3Server } from './kinds.js';
import { fixture } from '../../testing.js';

const claim = (spec: Record<string, unknown>): KObject => ({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'Bucket',
  metadata: { namespace: 'a', name: 'b' },
  spec,
});
const resource: S3Server = fixture<S3Server>({
  apiVersion: 'storage.local.conductor.io/v1alpha1',
  kind: 'S3Server',
  metadata: { namespace: 's', name: 'r' },
  spec: {},
});

describe('matchS3Server', () => {
  const cases = [
    { reason: 'a plain claim fits', spec: {}, fits: true },
    { reason: 'publicRead does not matter to s3rver', spec: { publicRead: true }, fits: true },
    { reason: 'versioning off fits', spec: { versioning: false }, fits: true },
    { reason: 'versioning cannot be honoured', spec: { versioning: true }, fits: false },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = matchS3Server(claim(c.spec), { type: 'resource', resource });
      assert.equal(got.fits, c.fits);
      if (!got.fits) assert.match(got.reason, /versioning/);
    });
  }
});

describe('configureS3Server', () => {
  test("the claim's requests become capabilities; the template's region wins; the template is not modified", () => {
    const template = { apiVersion: 'storage.local.conductor.io/v1alpha1', kind: 'S3Server', spec: { region: 'eu-west-1', capabilities: { region: 'europe' } } };
    const before = JSON.stringify(template);
    const spec = configureS3Server(claim({ requirements: { capacity: { storage: '5Gi' }, region: 'north-america', cost: 'free-tier' } }), template);
    assert.deepEqual(spec, { region: 'eu-west-1', capabilities: { region: 'europe', capacity: { storage: '5Gi' }, cost: 'free-tier' } });
    assert.equal(JSON.stringify(template), before);
  });

  test('a claim without requirements gets the template as it is', () => {
    assert.deepEqual(configureS3Server(claim({}), { apiVersion: 'v', kind: 'S3Server', spec: { port: 9000 } }), { port: 9000 });
  });
});
