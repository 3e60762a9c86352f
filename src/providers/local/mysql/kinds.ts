/**
 * The shapes of the local provider's MySQL kinds, as far as this provider reads them. The
 * CRDs themselves (and their full schemas) live in src/apis/local-database/mysql-kinds.ts.
 */
import type { KObject } from '../../../machinery/object.js';
import type { GroupKind } from '../../spi.js';
import { sqlClaimSpec, type SqlClaimSpec } from '../../sql-claim.js';

export const localDatabaseGroup = 'database.local.conductor.io';
export const localDatabaseVersion = 'v1alpha1';

/** The claim kind both MySQL kinds implement. */
export const mysqlInstanceClaim: GroupKind = { group: 'storage.conductor.io', kind: 'MySQLInstance' };

/** The connection secret keys of a MySQLInstance claim (DESIGN.md 3.1, SQL_CONNECTION_KEYS). */
export const mysqlSecretKeys = ['host', 'port', 'username', 'password', 'database', 'uri'] as const;

/** A MySQLServerSpec registers an existing MariaDB or MySQL server shared by many claims. */
export interface MySQLServerSpec {
  host: string;
  port?: number;
  /** The Secret (in the resource's namespace) holding the admin user's credentials. */
  adminCredentialsSecretRef?: { name: string; usernameKey?: string; passwordKey?: string };
  version?: string;
  [field: string]: unknown;
}

/** A LocalMySQLInstanceSpec asks for a dedicated MariaDB server process on this machine. */
export interface LocalMySQLInstanceSpec {
  /** A version or range the binaries must satisfy. */
  version?: string;
  /** A fixed port; by default a free port is chosen once and kept. */
  port?: number;
  /** The application database; default `app`. */
  databaseName?: string;
  /** The application user, with every privilege on that database; default `app`. */
  masterUsername?: string;
  [field: string]: unknown;
}

export interface MySQLServer extends KObject {
  spec: MySQLServerSpec;
  status?: {
    atProvider?: { version?: string; [field: string]: unknown };
    bindings?: { claimRef?: { namespace?: string; name?: string; uid?: string } }[];
    [field: string]: unknown;
  };
}

export interface LocalMySQLInstance extends KObject {
  spec: LocalMySQLInstanceSpec;
  status?: { atProvider?: { version?: string; [field: string]: unknown }; [field: string]: unknown };
}

/** The portable fields of a MySQLInstance claim this provider reads. */
export type MySQLClaimSpec = SqlClaimSpec;

/** claimSpec reads a claim's spec as a MySQLInstance spec (an absent spec is empty). */
export const claimSpec = sqlClaimSpec;

export const defaultAppDatabase = 'app';
export const defaultAppUser = 'app';
/** The administrative user Conductor keeps in a dedicated instance (TCP from 127.0.0.1 only). */
export const localAdminUser = 'conductor';
