/**
 * The shapes of the local provider's PostgreSQL kinds, as far as this provider reads them.
 * The CRDs themselves (and their full schemas) live in src/apis.
 */
import type { KObject } from '../../../machinery/object.js';
import type { GroupKind } from '../../spi.js';
import { sqlClaimSpec, type SqlClaimSpec } from '../../sql-claim.js';

export const localDatabaseGroup = 'database.local.conductor.io';
export const localDatabaseVersion = 'v1alpha1';

/** The claim kind both PostgreSQL kinds implement. */
export const postgresqlInstanceClaim: GroupKind = { group: 'storage.conductor.io', kind: 'PostgreSQLInstance' };

/** The connection secret keys of a PostgreSQLInstance claim (DESIGN.md 3.1). */
export const postgresqlSecretKeys = ['host', 'port', 'username', 'password', 'database', 'uri'] as const;

export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

/** A PostgreSQLServerSpec registers an existing server shared by many claims. */
export interface PostgreSQLServerSpec {
  host: string;
  port?: number;
  /** The Secret (in the resource's namespace) holding the admin role's credentials. */
  adminCredentialsSecretRef?: { name: string; usernameKey?: string; passwordKey?: string };
  /** The database the admin connects to for maintenance; default `postgres`. */
  adminDatabase?: string;
  sslMode?: SslMode;
  version?: string;
  [field: string]: unknown;
}

/** A LocalPostgreSQLInstanceSpec asks for a dedicated server process on this machine. */
export interface LocalPostgreSQLInstanceSpec {
  /** The PostgreSQL version (a major, or a range) the binaries must satisfy. */
  version?: string;
  /** A fixed port; by default a free port is chosen once and kept. */
  port?: number;
  /** The application database created in the server; default `app`. */
  databaseName?: string;
  /** The application role, owner of that database; default `app`. */
  masterUsername?: string;
  [field: string]: unknown;
}

export interface PostgreSQLServer extends KObject {
  spec: PostgreSQLServerSpec;
  status?: { atProvider?: { version?: string; [field: string]: unknown }; [field: string]: unknown };
}

export interface LocalPostgreSQLInstance extends KObject {
  spec: LocalPostgreSQLInstanceSpec;
  status?: { atProvider?: { version?: string; [field: string]: unknown }; [field: string]: unknown };
}

/** The portable fields of a PostgreSQLInstance claim this provider reads. */
export type PostgreSQLClaimSpec = SqlClaimSpec;

/** claimSpec reads a claim's spec as a PostgreSQLInstance spec (an absent spec is empty). */
export const claimSpec = sqlClaimSpec;

export const defaultAppDatabase = 'app';
export const defaultAppUser = 'app';
/** The superuser initdb creates in a dedicated instance. */
export const localSuperuser = 'postgres';
