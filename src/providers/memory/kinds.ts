/**
 * The names of the memory provider's kind and the spec fields it reads. The CRD itself (and
 * its full schema) lives in src/apis/memory.
 */
import type { KObject } from '../../machinery/object.js';
import type { GroupKind } from '../spi.js';
import { sqlClaimSpec, type SqlClaimSpec } from '../sql-claim.js';

export const memoryDatabaseGroup = 'database.memory.conductor.io';
export const memoryDatabaseVersion = 'v1alpha1';
export const memoryDatabaseKindName = 'MemoryDatabase';
export const memoryDatabasePlural = 'memorydatabases';

/** The host every MemoryDatabase reports: `.invalid` is reserved, so nothing can resolve it. */
export const memoryHost = 'memory.invalid';

/** The claim kinds a MemoryDatabase implements. */
export const postgresqlClaimKind: GroupKind = { group: 'storage.conductor.io', kind: 'PostgreSQLInstance' };
export const mysqlClaimKind: GroupKind = { group: 'storage.conductor.io', kind: 'MySQLInstance' };

/** The connection secret keys of both SQL claim kinds (DESIGN.md 3.1). */
export const sqlSecretKeys = ['host', 'port', 'username', 'password', 'database', 'uri'] as const;

/** The user and database names a MemoryDatabase reports when its spec names none. */
export const defaultUsername = 'app';
export const defaultDatabase = 'app';

/** The spec fields of a MemoryDatabase the provider reads (the common concrete fields aside). */
export interface MemoryDatabaseSpec {
  version?: string;
  masterUsername?: string;
  databaseName?: string;
  port?: number;
  sharing?: { mode?: string; maxClaims?: number };
  [field: string]: unknown;
}

export interface MemoryDatabase extends KObject {
  spec: MemoryDatabaseSpec;
}

export type { SqlClaimSpec };

/** claimSpec reads a claim's spec as a SQL claim spec (an absent spec is empty). */
export const claimSpec = sqlClaimSpec;

/** specOf reads a resource's spec defensively (the reconciler may hand over anything). */
export function specOf(resource: KObject): MemoryDatabaseSpec {
  const spec = resource.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as MemoryDatabaseSpec) : {};
}

/** nonEmpty returns a string field's value, or undefined when it is absent, empty or not a string. */
export function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
