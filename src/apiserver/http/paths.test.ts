import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePath } from './paths.js';

const resource = (o: {
  group?: string;
  version?: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  watchPrefix?: boolean;
}) => ({
  type: 'resource',
  group: o.group ?? '',
  version: o.version ?? 'v1',
  watchPrefix: o.watchPrefix ?? false,
  namespace: o.namespace,
  resource: o.resource,
  name: o.name,
  subresource: o.subresource ?? '',
});

describe('parsePath', () => {
  test('discovery paths', () => {
    assert.deepEqual(parsePath('/api'), { type: 'api-versions' });
    assert.deepEqual(parsePath('/apis'), { type: 'api-groups' });
    assert.deepEqual(parsePath('/apis/apps'), { type: 'api-group', group: 'apps' });
    assert.deepEqual(parsePath('/api/v1'), { type: 'resource-list', group: '', version: 'v1' });
    assert.deepEqual(parsePath('/apis/apps/v1/'), { type: 'resource-list', group: 'apps', version: 'v1' });
  });

  test('namespaced resources, objects and subresources', () => {
    assert.deepEqual(parsePath('/api/v1/namespaces/ns/configmaps'), resource({ namespace: 'ns', resource: 'configmaps' }));
    assert.deepEqual(parsePath('/api/v1/namespaces/ns/configmaps/cm'), resource({ namespace: 'ns', resource: 'configmaps', name: 'cm' }));
    assert.deepEqual(
      parsePath('/apis/apps/v1/namespaces/ns/deployments/d/status'),
      resource({ group: 'apps', namespace: 'ns', resource: 'deployments', name: 'd', subresource: 'status' }),
    );
    assert.deepEqual(parsePath('/api/v1/namespaces/ns/pods/p/log/extra'), { type: 'other', path: 'namespaces/ns/pods/p/log/extra' });
  });

  test('cluster-scoped resources, and namespaces themselves with their subresources', () => {
    assert.deepEqual(parsePath('/api/v1/namespaces'), resource({ resource: 'namespaces' }));
    assert.deepEqual(parsePath('/api/v1/namespaces/ns'), resource({ resource: 'namespaces', name: 'ns' }));
    assert.deepEqual(parsePath('/api/v1/namespaces/ns/status'), resource({ resource: 'namespaces', name: 'ns', subresource: 'status' }));
    assert.deepEqual(parsePath('/api/v1/namespaces/ns/finalize'), resource({ resource: 'namespaces', name: 'ns', subresource: 'finalize' }));
    assert.deepEqual(parsePath('/api/v1/nodes/n1/status'), resource({ resource: 'nodes', name: 'n1', subresource: 'status' }));
    assert.deepEqual(parsePath('/api/v1/nodes/n1/status/x'), { type: 'other', path: 'nodes/n1/status/x' });
  });

  test('the legacy /watch/ prefix', () => {
    assert.deepEqual(parsePath('/api/v1/watch/namespaces/ns/configmaps'), resource({ namespace: 'ns', resource: 'configmaps', watchPrefix: true }));
    assert.deepEqual(parsePath('/apis/apps/v1/watch/deployments'), resource({ group: 'apps', resource: 'deployments', watchPrefix: true }));
    assert.deepEqual(parsePath('/api/v1/watch'), { type: 'other', path: '' });
    assert.deepEqual(parsePath('/api/v1/watch/namespaces/ns/pods/p/log/x'), { type: 'other', path: 'namespaces/ns/pods/p/log/x' });
  });

  test('dot segments and unknown roots are not resource paths', () => {
    assert.deepEqual(parsePath('/api/v1/namespaces/../secrets'), { type: 'other', path: '/api/v1/namespaces/../secrets' });
    assert.deepEqual(parsePath('/version'), { type: 'other', path: '/version' });
  });
});
