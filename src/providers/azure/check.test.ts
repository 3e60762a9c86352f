import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { checkAzure, providerSpecProblem } from './check.js';

const provider = (spec: Record<string, unknown>): KObject => ({
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'Provider',
  metadata: { name: 'azure' },
  spec: { type: 'azure', ...spec },
});

describe('the azure Provider check, before any request', () => {
  const cases: { reason: string; spec: Record<string, unknown>; want: RegExp | undefined }[] = [
    { reason: 'no region, no project', spec: {}, want: undefined },
    { reason: 'an Azure region and a subscription', spec: { region: 'westeurope', project: '0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0' }, want: undefined },
    { reason: 'a region Azure does not have', spec: { region: 'us-east-1' }, want: /spec.region "us-east-1" is not an Azure region/ },
    { reason: 'a project that is no subscription', spec: { project: 'my-project' }, want: /spec.project "my-project" is not an Azure subscription ID/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = providerSpecProblem(provider(c.spec));
      if (c.want) assert.match(got ?? '', c.want);
      else assert.equal(got, undefined);
    });
  }

  test('InvalidSpec and InvalidCredentials are answered without a request', async () => {
    assert.deepEqual(await checkAzure(provider({ region: 'moon' }), { credentials: {} }), {
      ready: false,
      reason: 'InvalidSpec',
      message: 'spec.region "moon" is not an Azure region: want a location name such as eastus, westeurope or southeastasia',
    });
    const missing = await checkAzure(provider({}), { credentials: { accountName: 'shopdata' } });
    assert.deepEqual(missing, {
      ready: false,
      reason: 'InvalidCredentials',
      message: 'the credentials Secret has accountName but no accountKey: add accountKey',
    });
  });
});
