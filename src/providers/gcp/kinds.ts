/**
 * The `gcp` provider's kinds, each defined once (CRD, ResourceRef, TypeScript type):
 * - PubSubTopic (messaging.gcp.conductor.io): a Pub/Sub topic and its one subscription;
 *   implements MessageQueue claims;
 * - SpannerDatabase (database.gcp.conductor.io): a Spanner database in the PostgreSQL dialect,
 *   in an instance (an existing one, or one made for it); implements PostgreSQLInstance claims.
 * - CloudSQLInstance (database.gcp.conductor.io): a Cloud SQL instance (PostgreSQL or MySQL)
 *   with one database and one user; implements PostgreSQLInstance and MySQLInstance claims;
 * - MemorystoreInstance (cache.gcp.conductor.io): a Memorystore for Redis instance;
 *   implements RedisCluster claims;
 * - GCSBucket (storage.gcp.conductor.io): a Cloud Storage bucket; implements Bucket claims.
 * Claims get the project, the ids and the endpoint — and the Provider's application key when
 * its Secret has one — never the key Conductor manages with.
 */
import { s } from '../../apis/schema/builder.js';
import type { ObjectOf } from '../../apis/schema/kind.js';
import { BUCKET_CONNECTION_KEYS, bucketKind, mysqlInstanceKind, postgresqlInstanceKind, SQL_CONNECTION_KEYS } from '../../apis/storage/kinds.js';
import { REDIS_CONNECTION_KEYS, redisClusterKind } from '../../apis/cache/kinds.js';
import { MESSAGE_QUEUE_CONNECTION_KEYS, messageQueueKind } from '../../apis/messaging/kinds.js';
import { V1ALPHA1 } from '../../apis/well-known.js';
import type { GroupKind } from '../spi.js';
import { defineProviderKind } from '../kind-definition.js';
import { GCP_NAME_PATTERNS } from './names.js';
import { GCP_REGIONS, GCS_STORAGE_CLASSES, MEMORYSTORE_TIERS } from './price-table.js';
import { CLOUD_SQL_TIER_PATTERN } from './tiers.js';

export const GCP_MESSAGING_GROUP = 'messaging.gcp.conductor.io';
export const GCP_DATABASE_GROUP = 'database.gcp.conductor.io';
export const GCP_CACHE_GROUP = 'cache.gcp.conductor.io';
export const GCP_STORAGE_GROUP = 'storage.gcp.conductor.io';

export const messageQueueClaimKind: GroupKind = { group: messageQueueKind.group, kind: messageQueueKind.kind };
export const postgresqlClaimKind: GroupKind = { group: postgresqlInstanceKind.group, kind: postgresqlInstanceKind.kind };
export const mysqlClaimKind: GroupKind = { group: mysqlInstanceKind.group, kind: mysqlInstanceKind.kind };
export const redisClaimKind: GroupKind = { group: redisClusterKind.group, kind: redisClusterKind.kind };
export const bucketClaimKind: GroupKind = { group: bucketKind.group, kind: bucketKind.kind };

/** What a MessageQueue claim's Secret holds from a PubSubTopic: the claim kind's keys, then Google's own. */
export const pubSubTopicSecretKeys = [...MESSAGE_QUEUE_CONNECTION_KEYS, 'projectId', 'topic', 'subscription', 'emulated', 'credentials'] as const;
/** What a PostgreSQLInstance claim's Secret holds from a SpannerDatabase. */
export const spannerDatabaseSecretKeys = [...SQL_CONNECTION_KEYS, 'projectId', 'instanceId', 'databaseId', 'emulated', 'credentials'] as const;

/** What a PostgreSQLInstance or MySQLInstance claim's Secret holds from a CloudSQLInstance. */
export const cloudSqlInstanceSecretKeys = [...SQL_CONNECTION_KEYS, 'projectId', 'instanceId', 'connectionName', 'engine'] as const;
/** What a RedisCluster claim's Secret holds from a MemorystoreInstance. */
export const memorystoreInstanceSecretKeys = [...REDIS_CONNECTION_KEYS, 'projectId', 'instanceId', 'tls'] as const;
/** What a Bucket claim's Secret holds from a GCSBucket. */
export const gcsBucketSecretKeys = [...BUCKET_CONNECTION_KEYS, 'projectId', 'storageEndpoint', 'emulated', 'credentials'] as const;

const id = (kind: keyof typeof GCP_NAME_PATTERNS, what: string, rule: string) =>
  s
    .string({ pattern: GCP_NAME_PATTERNS[kind] })
    .describe(
      `The ${what}: ${rule}. Default: the resource's name when Google accepts it, else one derived from its namespace and name (provisioned resources: from the claim's).`,
    )
    .optional();

const region = s
  .enumOf(GCP_REGIONS)
  .describe(
    "The Google Cloud region (e.g. europe-west1): the resource's capabilities.region and the region its price is looked up for. Default: the Provider's spec.region.",
  )
  .optional();

export const pubSubTopicKind = defineProviderKind({
  group: GCP_MESSAGING_GROUP,
  version: V1ALPHA1,
  kind: 'PubSubTopic',
  plural: 'pubsubtopics',
  shortNames: ['gcptopic'],
  description:
    'A PubSubTopic is a Google Cloud Pub/Sub topic with one subscription, in the project its Provider (type gcp) reaches. ' +
    'Both are created and deleted by id, so a create repeated after a crash finds them. ' +
    'For a MessageQueue claim, endpoint is the Pub/Sub endpoint (host:port), queue and topic the topic to publish to, subscription the subscription to receive from; ' +
    "credentials is the Provider's application key when its Secret has one (else empty: the application uses its own credentials, or the emulator needs none), never the key Conductor manages with.",
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: messageQueueKind, portableKeys: MESSAGE_QUEUE_CONNECTION_KEYS, connectionSecretKeys: pubSubTopicSecretKeys }],
  fields: {
    forProvider: s
      .object({
        topicId: id('topic', 'topic id', '3 to 255 letters, digits and -_.~+%, beginning with a letter, not with goog'),
        subscriptionId: id(
          'subscription',
          "subscription id (default: the topic id and '-sub')",
          '3 to 255 letters, digits and -_.~+%, beginning with a letter, not with goog',
        ),
        messageRetentionSeconds: s
          .integer({ minimum: 600, maximum: 604800 })
          .withDefault(604800)
          .describe("How long the subscription keeps unacknowledged messages (10 minutes to 7 days); a MessageQueue claim's retentionSeconds sets it."),
        ackDeadlineSeconds: s
          .integer({ minimum: 10, maximum: 600 })
          .withDefault(10)
          .describe('How long a receiver has to acknowledge a message before it is delivered again.'),
        region,
      })
      .describe('The topic and subscription in Google Cloud.')
      .optional(),
  },
});
export type PubSubTopic = ObjectOf<typeof pubSubTopicKind>;

export const spannerDatabaseKind = defineProviderKind({
  group: GCP_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'SpannerDatabase',
  plural: 'spannerdatabases',
  shortNames: ['spanner'],
  description:
    'A SpannerDatabase is a Cloud Spanner database in the PostgreSQL dialect, in the project its Provider (type gcp) reaches, ' +
    'inside spec.forProvider.instanceId — an existing instance, or one Conductor creates (and deletes with the database under Delete, when no other database is left in it). ' +
    'Created and deleted by id; long-running operations are polled with backoff. ' +
    'For a PostgreSQLInstance claim, host and port are the Spanner endpoint, database the database id, username the application service account (empty without one), password empty (Spanner authenticates with tokens, not passwords), ' +
    "uri cloudspanner://host:port/projects/…/instances/…/databases/… (with ?autoConfigEmulator=true for an emulator), and credentials the Provider's application key when its Secret has one. Use a Spanner client, or PGAdapter for PostgreSQL drivers.",
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: postgresqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: spannerDatabaseSecretKeys }],
  fields: {
    forProvider: s
      .object({
        instanceId: id('instance', 'Spanner instance id', '2 to 64 lower-case letters, digits and hyphens, beginning with a letter'),
        databaseId: id('database', 'database id', '2 to 30 lower-case letters, digits, _ and -, beginning with a letter'),
        instanceConfig: s
          .string({ pattern: '^[a-z][a-z0-9-]{1,62}$' })
          .describe(
            'The instance configuration of an instance Conductor creates (default regional-<region>; the emulator has emulator-config). Ignored for an existing instance.',
          )
          .optional(),
        processingUnits: s
          .integer({ minimum: 100, maximum: 100000 })
          .withDefault(100)
          .describe(
            'The compute capacity of an instance Conductor creates (100 to 1000 in hundreds, then in thousands; 1000 = 1 node), and what its price is worked out for.',
          ),
        region,
      })
      .describe('The database (and its instance) in Google Cloud.')
      .optional(),
  },
});
export type SpannerDatabase = ObjectOf<typeof spannerDatabaseKind>;

export const CLOUD_SQL_ENGINES = ['POSTGRES', 'MYSQL'] as const;

export const cloudSqlInstanceKind = defineProviderKind({
  group: GCP_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'CloudSQLInstance',
  plural: 'cloudsqlinstances',
  shortNames: ['cloudsql'],
  description:
    'A CloudSQLInstance is a Cloud SQL instance (PostgreSQL or MySQL) in the project its Provider (type gcp) reaches, with one database and one user. ' +
    'Its id is recorded before it is created, so a create repeated after a crash finds it (an instance of that id not labelled for this resource is refused: import it with conductor.io/external-name); ' +
    "creating is polled with backoff until the instance is RUNNABLE. The user's and the root password are generated by Conductor (derived from a key in the Provider's Secret) and never logged. " +
    "For a PostgreSQLInstance or MySQLInstance claim, host is the instance's IP address (public, else private), port 5432 or 3306, username and password the user, database the database; " +
    'connectionName (project:region:instance) is for the Cloud SQL Auth Proxy and connectors.',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [
    { claim: postgresqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: cloudSqlInstanceSecretKeys },
    { claim: mysqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: cloudSqlInstanceSecretKeys },
  ],
  fields: {
    forProvider: s
      .object({
        instanceId: id(
          'sqlInstance',
          'Cloud SQL instance id',
          '2 to 63 lower-case letters, digits and hyphens, beginning with a letter (an id stays taken for a week after its instance is deleted)',
        ),
        region,
        engine: s.enumOf(CLOUD_SQL_ENGINES).describe('POSTGRES or MYSQL (a PostgreSQLInstance claim gets POSTGRES, a MySQLInstance MYSQL).'),
        databaseVersion: s
          .string({ pattern: '^(POSTGRES_[0-9]{1,2}|MYSQL_[0-9]_[0-9]{1,2})$' })
          .describe("Cloud SQL's database version (e.g. POSTGRES_16, MYSQL_8_0); default POSTGRES_16 or MYSQL_8_0 for the engine.")
          .optional(),
        tier: s
          .string({ pattern: CLOUD_SQL_TIER_PATTERN })
          .withDefault('db-custom-1-3840')
          .describe(
            'The machine tier: db-f1-micro, db-g1-small, or db-custom-<vCPUs>-<memory MiB> (1 or an even number of vCPUs up to 96, 0.9 to 6.5 GiB per vCPU, a multiple of 256 MiB).',
          ),
        storageGb: s.integer({ minimum: 10, maximum: 65_536 }).withDefault(10).describe('SSD storage in GB (10 to 65536); it can grow, never shrink.'),
        highAvailability: s.boolean().withDefault(false).describe('A standby in another zone of the region (availabilityType REGIONAL).'),
        publicIp: s
          .boolean()
          .withDefault(true)
          .describe('Whether the instance gets a public IPv4 address (with no authorized network: reach it through the Cloud SQL Auth Proxy).'),
        databaseName: s
          .string({ minLength: 1, maxLength: 63, pattern: GCP_NAME_PATTERNS.sqlName })
          .withDefault('app')
          .describe('The database created in the instance: a letter, then letters, digits and underscores.'),
        username: s
          .string({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z][A-Za-z0-9_]{0,31}$' })
          .withDefault('app')
          .describe('The user created in the instance (the claim connects as it): a letter, then letters, digits and underscores; at most 32 characters.'),
      })
      .describe('The instance in Google Cloud.')
      .optional(),
  },
});
export type CloudSQLInstance = ObjectOf<typeof cloudSqlInstanceKind>;

export const memorystoreInstanceKind = defineProviderKind({
  group: GCP_CACHE_GROUP,
  version: V1ALPHA1,
  kind: 'MemorystoreInstance',
  plural: 'memorystoreinstances',
  shortNames: ['memorystore'],
  description:
    'A MemorystoreInstance is a Memorystore for Redis instance in the project its Provider (type gcp) reaches. Its id is recorded before it is created, so a create repeated after a crash finds it; ' +
    "creating is polled with backoff until the instance is READY. For a RedisCluster claim, host and port are the instance's endpoint, password its AUTH string when authEnabled (else empty), " +
    "uri redis:// (rediss:// with transit encryption, then tls is true and the server's CA is Google's per-instance certificate).",
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: redisClusterKind, portableKeys: REDIS_CONNECTION_KEYS, connectionSecretKeys: memorystoreInstanceSecretKeys }],
  fields: {
    forProvider: s
      .object({
        instanceId: id('redisInstance', 'Memorystore instance id', '1 to 40 lower-case letters, digits and hyphens, beginning with a letter'),
        region,
        tier: s.enumOf(MEMORYSTORE_TIERS).withDefault('BASIC').describe('BASIC (one node) or STANDARD_HA (a replica and automatic failover).'),
        memorySizeGb: s.integer({ minimum: 1, maximum: 300 }).withDefault(1).describe('Provisioned memory in GB (1 to 300).'),
        redisVersion: s
          .string({ pattern: '^REDIS_[0-9]_[0-9X]$' })
          .describe("Memorystore's Redis version (e.g. REDIS_7_2); default: Memorystore's default.")
          .optional(),
        authEnabled: s.boolean().withDefault(true).describe('Whether clients must send the AUTH string (published as password).'),
        transitEncryption: s.boolean().withDefault(false).describe('TLS between clients and the instance (SERVER_AUTHENTICATION).'),
        evictionPolicy: s
          .string({ pattern: '^(noeviction|allkeys-lru|allkeys-lfu|allkeys-random|volatile-lru|volatile-lfu|volatile-random|volatile-ttl)$' })
          .describe("Redis's maxmemory-policy (a RedisCluster claim's evictionPolicy sets it).")
          .optional(),
      })
      .describe('The instance in Google Cloud.')
      .optional(),
  },
});
export type MemorystoreInstance = ObjectOf<typeof memorystoreInstanceKind>;

export const gcsBucketKind = defineProviderKind({
  group: GCP_STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'GCSBucket',
  plural: 'gcsbuckets',
  shortNames: ['gcs'],
  description:
    'A GCSBucket is a Cloud Storage bucket in the project its Provider (type gcp) reaches, in one region. Bucket names are global: the default name carries a hash of the project, namespace and name. ' +
    "For a Bucket claim, endpoint is Cloud Storage's S3-compatible XML API (https://storage.googleapis.com), bucket the bucket's name, region its location, accessKeyId and secretAccessKey the HMAC key of the Provider's Secret (hmacAccessId, hmacSecret) when it has one, else empty; " +
    "storageEndpoint is the JSON API for Google's clients and credentials the Provider's application key when its Secret has one. Deleting a bucket that still holds objects is refused unless forceDestroy.",
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: bucketKind, portableKeys: BUCKET_CONNECTION_KEYS, connectionSecretKeys: gcsBucketSecretKeys }],
  fields: {
    forProvider: s
      .object({
        bucketName: id(
          'bucket',
          'bucket name',
          '3 to 63 lower-case letters, digits, - and _, beginning and ending with a letter or digit, holding no "google"',
        ),
        region,
        storageClass: s
          .enumOf(GCS_STORAGE_CLASSES)
          .withDefault('STANDARD')
          .describe('The default storage class of new objects (and what the price is worked out for).'),
        versioning: s.boolean().withDefault(false).describe('Keep every version of each object.'),
        publicRead: s
          .boolean()
          .withDefault(false)
          .describe('Anyone may read the objects (allUsers gets roles/storage.objectViewer); public access prevention is enforced otherwise.'),
        forceDestroy: s
          .boolean()
          .withDefault(false)
          .describe('Delete the objects with the bucket under rebindPolicy Delete (otherwise a bucket holding objects is kept and the deletion says so).'),
      })
      .describe('The bucket in Google Cloud.')
      .optional(),
  },
});
export type GCSBucket = ObjectOf<typeof gcsBucketKind>;

/** The gcp provider's ResourceRefs, by plural. */
export const gcpRefs = {
  pubsubtopics: pubSubTopicKind.ref,
  spannerdatabases: spannerDatabaseKind.ref,
  cloudsqlinstances: cloudSqlInstanceKind.ref,
  memorystoreinstances: memorystoreInstanceKind.ref,
  gcsbuckets: gcsBucketKind.ref,
} as const;
