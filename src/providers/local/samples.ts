/**
 * Valid sample objects of the local provider's kinds, typed with their TypeScript types, for
 * tests (the catalog's: every CRD accepts its samples). Each call returns fresh objects.
 */
import type { KObject } from '../../machinery/object.js';
import { SYSTEM_NAMESPACE } from '../../apis/well-known.js';
import { localPostgreSQLInstanceKind, postgresqlServerKind } from './postgresql/kinds.js';
import { localMySQLInstanceKind, mysqlServerKind } from './mysql/kinds.js';
import { localRedisInstanceKind, redisServerKind } from './redis/kinds.js';
import { natsServerKind } from './nats/kinds.js';
import { s3ServerKind } from './s3/kinds.js';
import { hostPathPoolKind } from './hostpath/kinds.js';
import { haproxyLoadBalancerKind, localPortForwarderKind } from './loadbalancer/kinds.js';

/** One valid object of every kind of the local provider, in conductor-system; claimRefs name claims in `namespace`. */
export function localSampleObjects(namespace = 'default'): KObject[] {
  return [
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
        claimRef: {
          apiVersion: 'storage.conductor.io/v1alpha1',
          kind: 'PostgreSQLInstance',
          namespace,
          name: 'orders-db',
          uid: '0d9c7c1e-3f1b-4f7e-9a59-0d4c2c1c7a10',
        },
        writeConnectionSecretToRef: { name: 'default-orders-db-1a2b3c4d' },
      },
    }),
    mysqlServerKind.make({
      metadata: { name: 'shared-mariadb', namespace: SYSTEM_NAMESPACE },
      spec: {
        host: '127.0.0.1',
        port: 3306,
        adminCredentialsSecretRef: { name: 'shared-mariadb-admin' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        sharing: { mode: 'Shared', maxClaims: 20 },
      },
    }),
    localMySQLInstanceKind.make({
      metadata: { name: 'catalog-mariadb', namespace: SYSTEM_NAMESPACE },
      spec: {
        version: '>= 10.6',
        masterUsername: 'catalog',
        databaseName: 'catalog',
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        capabilities: { capacity: { storage: '10Gi' } },
      },
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
