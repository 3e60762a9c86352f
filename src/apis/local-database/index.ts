import { localDatabaseKinds as postgresqlKinds, localDatabaseRefs as postgresqlRefs } from './kinds.js';
import { mysqlKinds, mysqlRefs } from './mysql-kinds.js';

export * from './kinds.js';
export * from './mysql-kinds.js';

/** Every kind of database.local.conductor.io: PostgreSQL's, then MySQL's. */
export const localDatabaseKinds = [...postgresqlKinds, ...mysqlKinds] as const;

/** The resource refs of every kind of database.local.conductor.io, by plural. */
export const localDatabaseRefs = { ...postgresqlRefs, ...mysqlRefs } as const;
