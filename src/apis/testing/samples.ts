/**
 * Valid sample objects of every kind, typed with the kinds' TypeScript types, for tests
 * here and elsewhere (controllers, scheduler). Each call returns fresh objects.
 */
import type { KObject } from '../../machinery/object.js';
import { bucketKind, mysqlInstanceKind, postgresqlInstanceKind, volumeKind } from '../storage/index.js';
import { redisClusterKind } from '../cache/index.js';
import { messageQueueKind } from '../messaging/index.js';
import { loadBalancerKind } from '../network/index.js';
import { claimQuotaKind, defaultSchedulerProfile, providerKind, resourceClassKind } from '../core/index.js';
import { localMySQLInstanceKind, localPostgreSQLInstanceKind, mysqlServerKind, postgresqlServerKind } from '../local-database/index.js';
import { localRedisInstanceKind, redisServerKind } from '../local-cache/index.js';
import { natsServerKind } from '../local-messaging/index.js';
import { haproxyLoadBalancerKind, localPortForwarderKind } from '../local-network/index.js';
import { hostPathPoolKind, s3ServerKind } from '../local-storage/index.js';
import { memoryDatabaseKind } from '../memory/index.js';
import { SYSTEM_NAMESPACE } from '../well-known.js';

/** One valid object of every kind; claims in `namespace`, administrators' objects in conductor-system. */
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
    volumeKind.make({ metadata: { name: 'scratch', namespace }, spec: { accessMode: 'ReadWriteMany', filesystem: 'nfs', requirements: { capacity: { storage: '1Ti' } } } }),
    redisClusterKind.make({ metadata: { name: 'sessions', namespace }, spec: { version: '7', evictionPolicy: 'allkeys-lru', requirements: { capacity: { memory: '512Mi' } } } }),
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
    postgresqlServerKind.make({
      metadata: { name: 'shared-pg', namespace: SYSTEM_NAMESPACE, labels: { environment: 'dev' } },
      spec: {
        host: 'db.internal',
        port: 5432,
        adminCredentialsSecretRef: { name: 'shared-pg-admin' },
        sslMode: 'require',
        version: '15.4',
        providerRef: { name: 'local' },
        rebindPolicy: 'Retain',
        managementPolicy: 'Full',
        capabilities: { capacity: { storage: '200Gi' }, region: 'us-east-1' },
        sharing: { mode: 'Shared', maxClaims: 20 },
      },
    }),
    localPostgreSQLInstanceKind.make({
      metadata: { name: 'default-orders-db-1a2b3c4d', namespace: SYSTEM_NAMESPACE },
      spec: {
        version: '15',
        databaseName: 'orders',
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        resourceClass: 'standard',
        sharing: { mode: 'Exclusive' },
        claimRef: { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'PostgreSQLInstance', namespace, name: 'orders-db', uid: '0d9c7c1e-3f1b-4f7e-9a59-0d4c2c1c7a10' },
        writeConnectionSecretToRef: { name: 'default-orders-db-1a2b3c4d' },
      },
    }),
    memoryDatabaseKind.make({
      metadata: { name: 'memdb-0001', namespace: SYSTEM_NAMESPACE, labels: { environment: 'dev' } },
      spec: {
        version: '16.4',
        masterUsername: 'app',
        databaseName: 'app',
        port: 5432,
        rebindPolicy: 'Recycle',
        managementPolicy: 'Full',
        capabilities: { capacity: { storage: '10Gi' }, region: 'us-east-1', cost: 'free-tier' },
        sharing: { mode: 'Exclusive' },
      },
    }),
    mysqlServerKind.make({
      metadata: { name: 'shared-mariadb', namespace: SYSTEM_NAMESPACE },
      spec: { host: '127.0.0.1', port: 3306, adminCredentialsSecretRef: { name: 'shared-mariadb-admin' }, rebindPolicy: 'Delete', managementPolicy: 'Full', sharing: { mode: 'Shared', maxClaims: 20 } },
    }),
    localMySQLInstanceKind.make({
      metadata: { name: 'catalog-mariadb', namespace: SYSTEM_NAMESPACE },
      spec: { version: '>= 10.6', masterUsername: 'catalog', databaseName: 'catalog', rebindPolicy: 'Delete', managementPolicy: 'Full', capabilities: { capacity: { storage: '10Gi' } } },
    }),
    redisServerKind.make({
      metadata: { name: 'shared-redis', namespace: SYSTEM_NAMESPACE },
      spec: { host: '127.0.0.1', port: 6379, adminCredentialsSecretRef: { name: 'shared-redis-admin' }, rebindPolicy: 'Recycle', managementPolicy: 'Full' },
    }),
    localRedisInstanceKind.make({
      metadata: { name: 'sessions-redis', namespace: SYSTEM_NAMESPACE },
      spec: { version: '>= 7', evictionPolicy: 'allkeys-lru', maxMemory: '256mb', rebindPolicy: 'Delete', managementPolicy: 'Full' },
    }),
    natsServerKind.make({
      metadata: { name: 'nats', namespace: SYSTEM_NAMESPACE },
      spec: { maxPayload: 1048576, rebindPolicy: 'Delete', managementPolicy: 'Full' },
    }),
    s3ServerKind.make({
      metadata: { name: 's3', namespace: SYSTEM_NAMESPACE },
      spec: { region: 'us-east-1', rebindPolicy: 'Delete', managementPolicy: 'Full' },
    }),
    hostPathPoolKind.make({
      metadata: { name: 'volumes', namespace: SYSTEM_NAMESPACE },
      spec: { root: '/tmp', rebindPolicy: 'Recycle', managementPolicy: 'Full', capabilities: { capacity: { storage: '20Gi' } } },
    }),
    localPortForwarderKind.make({
      metadata: { name: 'web-bronze', namespace: SYSTEM_NAMESPACE },
      spec: { port: 8080, protocol: 'HTTP', targets: [{ address: '127.0.0.1:9000' }], rebindPolicy: 'Delete', managementPolicy: 'Full' },
    }),
    haproxyLoadBalancerKind.make({
      metadata: { name: 'web-silver', namespace: SYSTEM_NAMESPACE },
      spec: { protocol: 'TCP', targets: [{ address: '127.0.0.1:9000' }], rebindPolicy: 'Retain', managementPolicy: 'Full' },
    }),
  ];
}
