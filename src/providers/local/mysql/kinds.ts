/**
 * database.local.conductor.io/v1alpha1 — the `local` provider's MySQL kinds (docs/design.md 3.2,
 * 3.7), defined once: CRD, ResourceRef and TypeScript type. MySQLServer is an existing MariaDB
 * or MySQL server an administrator registers (each claim gets its own database and user on
 * it); LocalMySQLInstance is a dedicated MariaDB server process on this machine per claim.
 * Both implement MySQLInstance claims.
 */
import { s } from '../../../apis/schema/builder.js';
import type { ObjectOf } from '../../../apis/schema/kind.js';
import { mysqlInstanceKind, SQL_CONNECTION_KEYS } from '../../../apis/storage/kinds.js';
import { V1ALPHA1 } from '../../../apis/well-known.js';
import type { GroupKind } from '../../spi.js';
import { sqlClaimSpec, type SqlClaimSpec } from '../../sql-claim.js';
import { defineProviderKind, type ClaimKindSupport } from '../../kind-definition.js';
import { LOCAL_DATABASE_GROUP } from '../postgresql/kinds.js';

/** The claim kind both MySQL kinds implement. */
export const mysqlInstanceClaim: GroupKind = { group: mysqlInstanceKind.group, kind: mysqlInstanceKind.kind };

/** The connection secret keys of a MySQLInstance claim: exactly the claim kind's. */
export const mysqlSecretKeys = SQL_CONNECTION_KEYS;

const mysqlSupport: ClaimKindSupport = { claim: mysqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: mysqlSecretKeys };

const tcpPort = () => s.integer({ minimum: 1, maximum: 65535 });

export const mysqlServerKind = defineProviderKind({
  group: LOCAL_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'MySQLServer',
  plural: 'mysqlservers',
  shortNames: ['mysqlserver'],
  description: 'A MySQLServer registers an existing MariaDB or MySQL server that several claims share: each bound claim gets its own database and user on it.',
  sharing: 'Shared',
  lifecycle: 'Registered',
  implements: [mysqlSupport],
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

export const localMySQLInstanceKind = defineProviderKind({
  group: LOCAL_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'LocalMySQLInstance',
  plural: 'localmysqlinstances',
  shortNames: ['localmysql'],
  description:
    'A LocalMySQLInstance is a dedicated MariaDB server process on the machine Conductor runs on, with its data under the data directory; its capacity is capabilities.capacity.storage.',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [mysqlSupport],
  fields: {
    version: s.string().describe('A version or range the installed MariaDB must satisfy, e.g. "10.11" or ">= 5.7"; any when absent.').optional(),
    port: tcpPort().describe('The port to listen on (127.0.0.1); a free one is chosen and kept when absent.').optional(),
    masterUsername: s.string({ minLength: 1, maxLength: 32 }).describe('The user created for the claim.').optional(),
    databaseName: s.string({ minLength: 1, maxLength: 64 }).describe('The database created for the claim.').optional(),
  },
});
export type LocalMySQLInstance = ObjectOf<typeof localMySQLInstanceKind>;

/** The portable fields of a MySQLInstance claim this provider reads. */
export type MySQLClaimSpec = SqlClaimSpec;

/** claimSpec reads a claim's spec as a MySQLInstance spec (an absent spec is empty). */
export const claimSpec = sqlClaimSpec;

export const defaultAppDatabase = 'app';
export const defaultAppUser = 'app';
/** The administrative user Conductor keeps in a dedicated instance (TCP from 127.0.0.1 only). */
export const localAdminUser = 'conductor';

/** The MySQL kinds' ResourceRefs, by plural. */
export const mysqlRefs = {
  mysqlservers: mysqlServerKind.ref,
  localmysqlinstances: localMySQLInstanceKind.ref,
} as const;
