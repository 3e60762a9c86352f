/**
 * database.memory.conductor.io/v1alpha1 — the `memory` provider's kind (docs/design.md 3.2, 3.7),
 * defined once: CRD, ResourceRef and TypeScript type. A MemoryDatabase is a database that
 * exists only as an entry in the Conductor process's memory. It implements PostgreSQLInstance
 * and MySQLInstance claims so the control plane (scheduling, binding, provisioning, connection
 * Secrets, release) can be measured and demonstrated without any external system. Nothing can
 * connect to it: its host is `memory.invalid`.
 */
import type { KObject } from '../../machinery/object.js';
import { s } from '../../apis/schema/builder.js';
import type { ObjectOf } from '../../apis/schema/kind.js';
import { mysqlInstanceKind, postgresqlInstanceKind, SQL_CONNECTION_KEYS } from '../../apis/storage/kinds.js';
import { V1ALPHA1 } from '../../apis/well-known.js';
import type { GroupKind } from '../spi.js';
import { sqlClaimSpec, type SqlClaimSpec } from '../sql-claim.js';
import { defineProviderKind } from '../kind-definition.js';

export const MEMORY_DATABASE_GROUP = 'database.memory.conductor.io';

/** The claim kinds a MemoryDatabase implements. */
export const postgresqlClaimKind: GroupKind = { group: postgresqlInstanceKind.group, kind: postgresqlInstanceKind.kind };
export const mysqlClaimKind: GroupKind = { group: mysqlInstanceKind.group, kind: mysqlInstanceKind.kind };

/** The connection secret keys of both SQL claim kinds: exactly the claim kinds'. */
export const sqlSecretKeys = SQL_CONNECTION_KEYS;

export const memoryDatabaseKind = defineProviderKind({
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
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [
    { claim: postgresqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: sqlSecretKeys },
    { claim: mysqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: sqlSecretKeys },
  ],
  fields: {
    version: s
      .string()
      .describe(
        'The version the database claims to run, matched against claims\' version ranges, e.g. "16.4"; claims asking for a version do not fit a resource without one.',
      )
      .optional(),
    masterUsername: s.string({ minLength: 1, maxLength: 63 }).describe('The user name in the connection details; default "app".').optional(),
    databaseName: s.string({ minLength: 1, maxLength: 63 }).describe('The database name in the connection details; default "app".').optional(),
    port: s
      .integer({ minimum: 1, maximum: 65535 })
      .describe("The port in the connection details; default the claim kind's usual port (PostgreSQL 5432, MySQL 3306).")
      .optional(),
  },
});
export type MemoryDatabase = ObjectOf<typeof memoryDatabaseKind>;

/** The memory provider's ResourceRefs, by plural. */
export const memoryRefs = {
  memorydatabases: memoryDatabaseKind.ref,
} as const;

/** The host every MemoryDatabase reports: `.invalid` is reserved, so nothing can resolve it. */
export const memoryHost = 'memory.invalid';

/** The user and database names a MemoryDatabase reports when its spec names none. */
export const defaultUsername = 'app';
export const defaultDatabase = 'app';

/** The spec of a MemoryDatabase. */
export type MemoryDatabaseSpec = MemoryDatabase['spec'];

export type { SqlClaimSpec };

/** claimSpec reads a claim's spec as a SQL claim spec (an absent spec is empty). */
export const claimSpec = sqlClaimSpec;

/** specOf reads a resource's spec defensively (the reconciler may hand over anything). */
export function specOf(resource: KObject): Partial<MemoryDatabaseSpec> {
  const spec = resource.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? spec : {};
}

/** nonEmpty returns a string field's value, or undefined when it is absent, empty or not a string. */
export function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
