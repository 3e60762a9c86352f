import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { MatchCandidate, ResourceTemplate } from '../spi.js';
import type { CloudSQLInstance, MemorystoreInstance } from './kinds.js';
import { configureMemorystoreInstance, matchCloudSqlInstance, matchMemorystoreInstance } from './claims.js';

const redisClaim = (memory?: string): KObject => ({
  apiVersion: 'cache.conductor.io/v1alpha1',
  kind: 'RedisCluster',
  metadata: { name: 'sessions', namespace: 'shop', uid: 'u' },
  spec: memory === undefined ? {} : { requirements: { capacity: { memory } } },
});
const template = (forProvider: Record<string, unknown>): ResourceTemplate => ({
  apiVersion: 'cache.gcp.conductor.io/v1alpha1',
  kind: 'MemorystoreInstance',
  spec: { forProvider } as never,
});
const asClass = (t: ResourceTemplate): MatchCandidate<MemorystoreInstance> => ({
  type: 'class',
  resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'redis', namespace: 'conductor-system' } },
  template: t,
});
const instance = (memorySizeGb: number): MatchCandidate<MemorystoreInstance> => ({
  type: 'resource',
  resource: {
    apiVersion: 'cache.gcp.conductor.io/v1alpha1',
    kind: 'MemorystoreInstance',
    metadata: { name: 'r', namespace: 'conductor-system' },
    spec: { rebindPolicy: 'Retain', managementPolicy: 'Full', forProvider: { memorySizeGb, tier: 'BASIC', authEnabled: true, transitEncryption: false } },
  },
});
const forProviderOf = (spec: Record<string, unknown>) => spec.forProvider as Record<string, unknown>;

describe("MemorystoreInstance and a RedisCluster claim's memory", () => {
  test('a class makes an instance with the memory the claim asks, in whole GB rounded up, never less than the template', () => {
    assert.equal(forProviderOf(configureMemorystoreInstance(redisClaim('5Gi'), template({ region: 'us-central1' }))).memorySizeGb, 5);
    assert.equal(forProviderOf(configureMemorystoreInstance(redisClaim('1500Mi'), template({}))).memorySizeGb, 2);
    assert.equal(forProviderOf(configureMemorystoreInstance(redisClaim('1Gi'), template({ memorySizeGb: 4 }))).memorySizeGb, 4);
    assert.equal(forProviderOf(configureMemorystoreInstance(redisClaim(), template({ memorySizeGb: 3 }))).memorySizeGb, 3);
  });

  test('more than Memorystore offers, or an existing instance too small, does not fit, said in GB', () => {
    assert.deepEqual(matchMemorystoreInstance(redisClaim('400Gi'), asClass(template({}))), {
      fits: false,
      reason: 'wants 400 GB of memory; Memorystore for Redis offers at most 300 GB',
    });
    assert.deepEqual(matchMemorystoreInstance(redisClaim('5Gi'), instance(2)), { fits: false, reason: 'instance has 2 GB of memory, claim wants 5 GB' });
    assert.equal(matchMemorystoreInstance(redisClaim('5Gi'), instance(8)).fits, true);
    assert.equal(matchMemorystoreInstance(redisClaim('lots'), asClass(template({}))).fits, false);
  });
});

describe("CloudSQLInstance and a SQL claim's storage", () => {
  const sqlClass: MatchCandidate<CloudSQLInstance> = {
    type: 'class',
    resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'sql', namespace: 'conductor-system' } },
    template: { apiVersion: 'database.gcp.conductor.io/v1alpha1', kind: 'CloudSQLInstance', spec: { forProvider: { engine: 'POSTGRES' } } },
  };
  const asking = (storage: string): KObject => ({
    apiVersion: 'storage.conductor.io/v1alpha1',
    kind: 'PostgreSQLInstance',
    metadata: { name: 'orders', namespace: 'shop', uid: 'u' },
    spec: { requirements: { capacity: { storage } } },
  });
  test('more than Cloud SQL offers (65536 GB) does not fit, said in GB; a storage that is no quantity neither', () => {
    assert.deepEqual(matchCloudSqlInstance(asking('60T'), sqlClass), { fits: true });
    assert.deepEqual(matchCloudSqlInstance(asking('70T'), sqlClass), {
      fits: false,
      reason: 'wants 70000 GB of storage; a Cloud SQL instance offers at most 65536 GB',
    });
    assert.deepEqual(matchCloudSqlInstance(asking('lots'), sqlClass), { fits: false, reason: 'requirements.capacity.storage is not a quantity' });
  });
});
