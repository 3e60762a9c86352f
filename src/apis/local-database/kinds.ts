/**
 * database.local.conductor.io/v1alpha1 — the `local` provider's PostgreSQL kinds
 * (DESIGN 3.2, 3.7): PostgreSQLServer, a shared server an administrator registers (each
 * claim gets its own database and role on it), and LocalPostgreSQLInstance, a dedicated
 * server process on this machine per claim. Both implement PostgreSQLInstance claims.
 */
import { s } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineConcreteKind } from '../common/concrete.js';
import { V1ALPHA1 } from '../well-known.js';

export const LOCAL_DATABASE_GROUP = 'database.local.conductor.io';

/** The claim kinds both PostgreSQL kinds implement (CRD annotation conductor.io/implements). */
export const POSTGRESQL_CLAIM_KINDS = ['postgresqlinstances.storage.conductor.io'];

/** libpq's sslmode values. */
export const POSTGRES_SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

const tcpPort = () => s.integer({ minimum: 1, maximum: 65535 });

export const postgresqlServerKind = defineConcreteKind({
  group: LOCAL_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'PostgreSQLServer',
  plural: 'postgresqlservers',
  shortNames: ['pgserver'],
  description:
    'A PostgreSQLServer registers an existing PostgreSQL server that several claims share: each bound claim gets its own database and login role on it.',
  implements: POSTGRESQL_CLAIM_KINDS,
  sharingDefault: { mode: 'Shared' },
  fields: {
    host: s.string({ minLength: 1 }).describe('Host name or IP address of the server.'),
    port: tcpPort().withDefault(5432).describe('TCP port of the server.').optional(),
    adminCredentialsSecretRef: s
      .object({
        name: s.string({ minLength: 1 }).describe('Name of the Secret, in the same namespace; whoever sets it must be allowed to read that Secret.'),
        usernameKey: s.string({ minLength: 1 }).withDefault('username').describe('The key holding the admin user name.').optional(),
        passwordKey: s.string({ minLength: 1 }).withDefault('password').describe('The key holding the admin password.').optional(),
      })
      .describe('The Secret with the credentials of a role that may create databases and roles.'),
    sslMode: s.enumOf(POSTGRES_SSL_MODES).withDefault('prefer').describe('How connections use TLS (libpq sslmode).').optional(),
    version: s.string().describe('The server\'s PostgreSQL version, matched against claims\' version ranges; observed when absent.').optional(),
  },
});
export type PostgreSQLServer = ObjectOf<typeof postgresqlServerKind>;

export const localPostgreSQLInstanceKind = defineConcreteKind({
  group: LOCAL_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'LocalPostgreSQLInstance',
  plural: 'localpostgresqlinstances',
  shortNames: ['localpg'],
  description:
    'A LocalPostgreSQLInstance is a dedicated PostgreSQL server process on the machine Conductor runs on, with its data under the data directory; its capacity is capabilities.capacity.storage.',
  implements: POSTGRESQL_CLAIM_KINDS,
  fields: {
    version: s.string().describe('The PostgreSQL major version to run, e.g. "15"; the installed one when absent.').optional(),
    port: tcpPort().describe('The port to listen on (127.0.0.1); a free one is chosen and kept when absent.').optional(),
    masterUsername: s.string({ minLength: 1, maxLength: 63 }).describe('The login role created for the claim.').optional(),
    databaseName: s.string({ minLength: 1, maxLength: 63 }).describe('The database created for the claim.').optional(),
  },
});
export type LocalPostgreSQLInstance = ObjectOf<typeof localPostgreSQLInstanceKind>;

export const localDatabaseKinds = [postgresqlServerKind, localPostgreSQLInstanceKind] as const;

export const localDatabaseRefs = {
  postgresqlservers: postgresqlServerKind.ref,
  localpostgresqlinstances: localPostgreSQLInstanceKind.ref,
} as const;
