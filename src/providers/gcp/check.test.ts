import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { checkGcp, providerSpecProblem } from './check.js';
import { gcpError, GcpError } from './errors.js';

const provider = (spec: Record<string, unknown>): KObject => ({
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'Provider',
  metadata: { name: 'gcp' },
  spec: { type: 'gcp', ...spec },
});

describe('the gcp Provider check, before any request', () => {
  test('a region Google has, or none, passes; another is InvalidSpec', () => {
    assert.equal(providerSpecProblem(provider({})), undefined);
    assert.equal(providerSpecProblem(provider({ region: 'europe-west1' })), undefined);
    assert.match(providerSpecProblem(provider({ region: 'eastus' })) ?? '', /spec.region "eastus" is not a Google Cloud region/);
  });

  test('InvalidSpec and InvalidCredentials are answered without a request', async () => {
    assert.deepEqual(await checkGcp(provider({ region: 'moon' }), { credentials: {} }), {
      ready: false,
      reason: 'InvalidSpec',
      message: 'spec.region "moon" is not a Google Cloud region: want a region name such as us-central1, europe-west1 or asia-east1',
    });
    const broken = await checkGcp(provider({}), { credentials: { 'credentials.json': '{"private_key": "-----BEGIN PRIVATE KEY-----\nSECRET' } });
    assert.equal(broken.ready, false);
    assert.match(broken.ready ? '' : broken.message, /^key credentials\.json does not parse as JSON/);
    assert.ok(!(broken.ready ? '' : broken.message).includes('SECRET'));
  });
});

describe('failed Google calls, classified', () => {
  const cases: { code: number | undefined; reason: string }[] = [
    { code: 14, reason: 'Unreachable' },
    { code: 16, reason: 'AuthenticationFailed' },
    { code: 7, reason: 'Forbidden' },
    { code: 5, reason: 'NotFound' },
    { code: 8, reason: 'Throttled' },
    { code: 3, reason: 'InvalidArgument' },
    { code: 4, reason: 'TimedOut' },
    { code: undefined, reason: 'RequestFailed' },
  ];
  for (const c of cases) {
    test(`gRPC code ${c.code ?? 'none'} → ${c.reason}`, () => {
      const err = gcpError(Object.assign(new Error(`${c.code} SOMETHING: details\nmore lines`), { code: c.code, details: 'details' }), 'create topic t');
      assert.ok(err instanceof GcpError);
      assert.equal(err.reason, c.reason);
      assert.match(err.message, /^cannot create topic t: /);
      assert.ok(!err.message.includes('more lines'));
    });
  }
});
