/**
 * database.local.conductor.io/v1alpha1 — the `local` provider's MySQL kinds (DESIGN 3.2,
 * 3.7): MySQLServer, an existing MariaDB or MySQL server an administrator registers (each
 * claim gets its own database and user on it), and LocalMySQLInstance, a dedicated MariaDB
 * server process on this machine per claim. Both implement MySQLInstance claims.
 */
import { s } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineConcreteKind } from '../common/concrete.js';
import { V1ALPHA1 } from '../well-known.js';
import { LOCAL_DATABASE_GROUP } from './kinds.js';

/** The claim kinds both MySQL kinds implement (CRD annotation conductor.io/implements). */
export const MYSQL_CLAIM_KINDS = ['mysqlinstances.storage.conductor.io'];

const tcpPort = () => s.integer({ minimum: 1, maximum: 65535 });

export const mysqlServerKind = defineConcreteKind({
  group: LOCAL_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'MySQLServer',
  plural: 'mysqlservers',
  shortNames: ['mysqlserver'],
  description:
    'A MySQLServer registers an existing MariaDB or MySQL server that several claims share: each bound claim gets its own database and user on it.',
  implements: MYSQL_CLAIM_KINDS,
  sharingDefault: { mode: 'Shared' },
  fields: {
    host: s.string({ minLength: 1 }).describe('Host name or IP address of the server.'),
    port: tcpPort().withDefault(3306).describe('TCP port of the server.').optional(),
    adminCredentialsSecretRef: s
      .object({
        name: s.string({ minLength: 1 }).describe('Name of the Secret, in the same namespace; whoever sets it must be allowed to read that Secret.'),
        usernameKey: s.string({ minLength: 1 }).withDefault('username').describe('The key holding the admin user name.').optional(),
        passwordKey: s.string({ minLength: 1 }).withDefault('password').describe('The key holding the admin password.').optional(),
      })
      .describe('The Secret with the credentials of a user that may create databases and users and grant privileges.'),
    version: s
      .string()
      .describe('The server\'s version (e.g. "8.0" or "10.11-MariaDB"), matched against claims\' version ranges; observed when absent.')
      .optional(),
  },
});
export type MySQLServer = ObjectOf<typeof mysqlServerKind>;

export const localMySQLInstanceKind = defineConcreteKind({
  group: LOCAL_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'LocalMySQLInstance',
  plural: 'localmysqlinstances',
  shortNames: ['localmysql'],
  description:
    'A LocalMySQLInstance is a dedicated MariaDB server process on the machine Conductor runs on, with its data under the data directory; its capacity is capabilities.capacity.storage.',
  implements: MYSQL_CLAIM_KINDS,
  fields: {
    version: s.string().describe('A version or range the installed MariaDB must satisfy, e.g. "10.11" or ">= 5.7"; any when absent.').optional(),
    port: tcpPort().describe('The port to listen on (127.0.0.1); a free one is chosen and kept when absent.').optional(),
    masterUsername: s.string({ minLength: 1, maxLength: 32 }).describe('The user created for the claim.').optional(),
    databaseName: s.string({ minLength: 1, maxLength: 64 }).describe('The database created for the claim.').optional(),
  },
});
export type LocalMySQLInstance = ObjectOf<typeof localMySQLInstanceKind>;

export const mysqlKinds = [mysqlServerKind, localMySQLInstanceKind] as const;

export const mysqlRefs = {
  mysqlservers: mysqlServerKind.ref,
  localmysqlinstances: localMySQLInstanceKind.ref,
} as const;
