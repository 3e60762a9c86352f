/**
 * storage.conductor.io/v1alpha1 — the storage claim kinds: MySQLInstance,
 * PostgreSQLInstance, Bucket and Volume (docs/design.md 3.1).
 */
import { s } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineClaimKind } from '../common/claim.js';
import { V1ALPHA1 } from '../well-known.js';

export const STORAGE_GROUP = 'storage.conductor.io';

/** The keys of a MySQL or PostgreSQL claim's connection Secret. */
export const SQL_CONNECTION_KEYS = ['host', 'port', 'username', 'password', 'database', 'uri'] as const;
/** The keys of a Bucket's connection Secret. */
export const BUCKET_CONNECTION_KEYS = ['endpoint', 'bucket', 'region', 'accessKeyId', 'secretAccessKey'] as const;
/** The keys of a Volume's connection Secret: `path` for a local filesystem, or `server` and `export`. */
export const VOLUME_CONNECTION_KEYS = ['path', 'server', 'export'] as const;

/** The portable fields of both SQL database claims. */
const sqlDatabaseFields = {
  version: s.string().describe('A version or semver range, e.g. ">= 5.6"; loose versions such as "5.7" or "15" are coerced.').optional(),
  masterUsername: s.string({ minLength: 1, maxLength: 63 }).describe('The user the application connects as.').optional(),
  databaseName: s.string({ minLength: 1, maxLength: 63 }).describe('The database to create for the application.').optional(),
};

export const mysqlInstanceKind = defineClaimKind({
  group: STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'MySQLInstance',
  plural: 'mysqlinstances',
  shortNames: ['mysql'],
  description: 'A MySQLInstance claims a MySQL database. Its connection Secret has the keys host, port, username, password, database and uri.',
  connectionKeys: SQL_CONNECTION_KEYS,
  portable: sqlDatabaseFields,
});
export type MySQLInstance = ObjectOf<typeof mysqlInstanceKind>;

export const postgresqlInstanceKind = defineClaimKind({
  group: STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'PostgreSQLInstance',
  plural: 'postgresqlinstances',
  shortNames: ['pg', 'postgres'],
  description: 'A PostgreSQLInstance claims a PostgreSQL database. Its connection Secret has the keys host, port, username, password, database and uri.',
  connectionKeys: SQL_CONNECTION_KEYS,
  portable: sqlDatabaseFields,
});
export type PostgreSQLInstance = ObjectOf<typeof postgresqlInstanceKind>;

export const bucketKind = defineClaimKind({
  group: STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'Bucket',
  plural: 'buckets',
  shortNames: ['bkt'],
  description: 'A Bucket claims an object storage bucket. Its connection Secret has the keys endpoint, bucket, region, accessKeyId and secretAccessKey.',
  connectionKeys: BUCKET_CONNECTION_KEYS,
  portable: {
    versioning: s.boolean().describe('Keep every version of each object.').optional(),
    publicRead: s.boolean().describe('Anyone may read the objects.').optional(),
  },
});
export type Bucket = ObjectOf<typeof bucketKind>;

export const VOLUME_ACCESS_MODES = ['ReadWriteOnce', 'ReadWriteMany'] as const;

export const volumeKind = defineClaimKind({
  group: STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'Volume',
  plural: 'volumes',
  shortNames: ['vol'],
  description: 'A Volume claims a filesystem. Its connection Secret has the key path, or the keys server and export.',
  connectionKeys: VOLUME_CONNECTION_KEYS.map((k) => `${k}?`),
  portable: {
    accessMode: s.enumOf(VOLUME_ACCESS_MODES).describe('ReadWriteOnce: one consumer; ReadWriteMany: several.').optional(),
    filesystem: s.string().describe('The filesystem type, e.g. ext4 or nfs.').optional(),
  },
});
export type Volume = ObjectOf<typeof volumeKind>;

/** Every kind of the group. */
export const storageKinds = [mysqlInstanceKind, postgresqlInstanceKind, bucketKind, volumeKind] as const;

/** ResourceRefs for the Client. */
export const storageRefs = {
  mysqlinstances: mysqlInstanceKind.ref,
  postgresqlinstances: postgresqlInstanceKind.ref,
  buckets: bucketKind.ref,
  volumes: volumeKind.ref,
} as const;
