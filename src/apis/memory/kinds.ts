/**
 * database.memory.conductor.io/v1alpha1 — the `memory` provider's kind (DESIGN 3.2, 3.7):
 * MemoryDatabase, a database that exists only as an entry in the Conductor process's memory.
 * It implements PostgreSQLInstance and MySQLInstance claims so the control plane (scheduling,
 * binding, provisioning, connection Secrets, release) can be measured and demonstrated
 * without any external system. Nothing can connect to it: its host is `memory.invalid`.
 */
import { s } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineConcreteKind } from '../common/concrete.js';
import { V1ALPHA1 } from '../well-known.js';

export const MEMORY_DATABASE_GROUP = 'database.memory.conductor.io';

/** The claim kinds a MemoryDatabase implements (CRD annotation conductor.io/implements). */
export const MEMORY_DATABASE_CLAIM_KINDS = ['postgresqlinstances.storage.conductor.io', 'mysqlinstances.storage.conductor.io'];

export const memoryDatabaseKind = defineConcreteKind({
  group: MEMORY_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'MemoryDatabase',
  plural: 'memorydatabases',
  shortNames: ['memdb'],
  description:
    'A MemoryDatabase is a stand-in database that exists only in the memory of the Conductor process: creating, observing, ' +
    'updating and deleting it are instant, and its connection details are synthesized (host memory.invalid, which nothing ' +
    'serves). It implements PostgreSQLInstance and MySQLInstance claims so that the control plane can be measured and ' +
    'demonstrated without external systems; its entries do not survive a restart (they are re-created, with new passwords).',
  implements: MEMORY_DATABASE_CLAIM_KINDS,
  fields: {
    version: s
      .string()
      .describe('The version the database claims to run, matched against claims\' version ranges, e.g. "16.4"; claims asking for a version do not fit a resource without one.')
      .optional(),
    masterUsername: s.string({ minLength: 1, maxLength: 63 }).describe('The user name in the connection details; default "app".').optional(),
    databaseName: s.string({ minLength: 1, maxLength: 63 }).describe('The database name in the connection details; default "app".').optional(),
    port: s
      .integer({ minimum: 1, maximum: 65535 })
      .describe('The port in the connection details; default the claim kind\'s usual port (PostgreSQL 5432, MySQL 3306).')
      .optional(),
  },
});
export type MemoryDatabase = ObjectOf<typeof memoryDatabaseKind>;

export const memoryKinds = [memoryDatabaseKind] as const;

export const memoryRefs = {
  memorydatabases: memoryDatabaseKind.ref,
} as const;
