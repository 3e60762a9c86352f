/**
 * Valid sample objects of every kind of apis/ (claim and admin kinds), typed with the kinds'
 * TypeScript types, for tests here and elsewhere (controllers, scheduler). Each provider has
 * samples of its concrete kinds beside its kinds (`providers/<name>/samples.ts`). Each call
 * returns fresh objects.
 */
import type { KObject } from '../../machinery/object.js';
import { bucketKind, mysqlInstanceKind, postgresqlInstanceKind, volumeKind } from '../storage/index.js';
import { redisClusterKind } from '../cache/index.js';
import { messageQueueKind } from '../messaging/index.js';
import { loadBalancerKind } from '../network/index.js';
import { claimQuotaKind, defaultSchedulerProfile, providerKind, resourceClassKind } from '../core/index.js';
import { SYSTEM_NAMESPACE } from '../well-known.js';

/** One valid object of every kind of apis/; claims in `namespace`, administrators' objects in conductor-system. */
export function sampleObjects(namespace = 'default'): KObject[] {
  return [
    mysqlInstanceKind.make({
      metadata: { name: 'wordpress-db', namespace },
      spec: {
        version: '>= 5.6',
        masterUsername: 'masteruser',
        requirements: { capacity: { storage: '25Gi' }, region: 'north-america', cost: 'free-tier', performance: 'standard' },
        resourceClass: 'performance',
        resourceSelector: { matchExpressions: [{ key: 'environment', operator: 'In', values: ['dev'] }] },
        writeConnectionSecretToRef: { name: 'wordpress-db' },
      },
    }),
    postgresqlInstanceKind.make({
      metadata: { name: 'orders-db', namespace },
      spec: { version: '15', databaseName: 'orders', requirements: { capacity: { storage: 10 } }, resourceName: 'shared-pg' },
    }),
    bucketKind.make({ metadata: { name: 'assets', namespace }, spec: { versioning: true, publicRead: false } }),
    volumeKind.make({
      metadata: { name: 'scratch', namespace },
      spec: { accessMode: 'ReadWriteMany', filesystem: 'nfs', requirements: { capacity: { storage: '1Ti' } } },
    }),
    redisClusterKind.make({
      metadata: { name: 'sessions', namespace },
      spec: { version: '7', evictionPolicy: 'allkeys-lru', requirements: { capacity: { memory: '512Mi' } } },
    }),
    messageQueueKind.make({ metadata: { name: 'jobs', namespace }, spec: { fifo: true, retentionSeconds: 86400 } }),
    loadBalancerKind.make({
      metadata: { name: 'web', namespace },
      spec: {
        ports: [80, 443],
        protocol: 'HTTPS',
        targets: [{ address: '10.0.0.5:8080' }, { serviceRef: { name: 'web', port: 8080 } }, { claimRef: { kind: 'RedisCluster', name: 'sessions' } }],
        tls: { secretRef: { name: 'web-tls' } },
        resourceClass: 'gold',
      },
    }),
    resourceClassKind.make({
      metadata: { name: 'local-pg', namespace: SYSTEM_NAMESPACE, annotations: { 'conductor.io/is-default-class': 'true' } },
      resourceClass: 'standard',
      capabilities: { capacity: { storage: '50Gi' }, region: 'us-east-1', cost: 'free-tier' },
      supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
      rebindPolicy: 'Delete',
      bindingMode: 'Immediate',
      allowedNamespaces: { matchLabels: { team: 'shop' } },
      pool: { minFree: 1, maxFree: 2, maxInstances: 10 },
      providerRef: { name: 'local' },
      template: {
        apiVersion: 'database.local.conductor.io/v1alpha1',
        kind: 'LocalPostgreSQLInstance',
        metadata: { labels: { tier: 'standard' } },
        spec: { version: '15', anything: { nested: true } },
      },
    }),
    providerKind.make({
      metadata: { name: 'local', namespace: SYSTEM_NAMESPACE },
      spec: { type: 'local', region: 'us-east-1' },
    }),
    claimQuotaKind.make({
      metadata: { name: 'quota', namespace },
      spec: { hard: { claims: 10, 'requests.storage': '500Gi', 'performance.claims': 2, 'cost.monthly': '300' } },
    }),
    defaultSchedulerProfile(),
  ];
}
