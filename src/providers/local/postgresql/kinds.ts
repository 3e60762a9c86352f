/**
 * database.local.conductor.io/v1alpha1 — the `local` provider's PostgreSQL kinds
 * (docs/design.md 3.2, 3.7), defined once: CRD, ResourceRef and TypeScript type. PostgreSQLServer is
 * a shared server an administrator registers (each claim gets its own database and role on
 * it); LocalPostgreSQLInstance is a dedicated server process on this machine per claim. Both
 * implement PostgreSQLInstance claims.
 */
import { s } from '../../../apis/schema/builder.js';
import type { ObjectOf } from '../../../apis/schema/kind.js';
import { postgresqlInstanceKind, SQL_CONNECTION_KEYS } from '../../../apis/storage/kinds.js';
import { V1ALPHA1 } from '../../../apis/well-known.js';
import type { GroupKind } from '../../spi.js';
import { sqlClaimSpec, type SqlClaimSpec } from '../../sql-claim.js';
import { defineProviderKind, type ClaimKindSupport } from '../../kind-definition.js';

export const LOCAL_DATABASE_GROUP = 'database.local.conductor.io';

/** The claim kind both PostgreSQL kinds implement. */
export const postgresqlInstanceClaim: GroupKind = { group: postgresqlInstanceKind.group, kind: postgresqlInstanceKind.kind };

/** The connection secret keys of a PostgreSQLInstance claim: exactly the claim kind's. */
export const postgresqlSecretKeys = SQL_CONNECTION_KEYS;

const postgresqlSupport: ClaimKindSupport = { claim: postgresqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: postgresqlSecretKeys };

/** libpq's sslmode values. */
export const POSTGRES_SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

const tcpPort = () => s.integer({ minimum: 1, maximum: 65535 });

export const postgresqlServerKind = defineProviderKind({
  group: LOCAL_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'PostgreSQLServer',
  plural: 'postgresqlservers',
  shortNames: ['pgserver'],
  description:
    'A PostgreSQLServer registers an existing PostgreSQL server that several claims share: each bound claim gets its own database and login role on it.',
  sharing: 'Shared',
  lifecycle: 'Registered',
  implements: [postgresqlSupport],
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
    version: s.string().describe("The server's PostgreSQL version, matched against claims' version ranges; observed when absent.").optional(),
  },
});
export type PostgreSQLServer = ObjectOf<typeof postgresqlServerKind>;

export const localPostgreSQLInstanceKind = defineProviderKind({
  group: LOCAL_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'LocalPostgreSQLInstance',
  plural: 'localpostgresqlinstances',
  shortNames: ['localpg'],
  description:
    'A LocalPostgreSQLInstance is a dedicated PostgreSQL server process on the machine Conductor runs on, with its data under the data directory; its capacity is capabilities.capacity.storage.',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [postgresqlSupport],
  fields: {
    version: s.string().describe('The PostgreSQL major version to run, e.g. "15"; the installed one when absent.').optional(),
    port: tcpPort().describe('The port to listen on (127.0.0.1); a free one is chosen and kept when absent.').optional(),
    masterUsername: s.string({ minLength: 1, maxLength: 63 }).describe('The login role created for the claim.').optional(),
    databaseName: s.string({ minLength: 1, maxLength: 63 }).describe('The database created for the claim.').optional(),
  },
});
export type LocalPostgreSQLInstance = ObjectOf<typeof localPostgreSQLInstanceKind>;

/** libpq's sslmode values, as a type. */
export type SslMode = (typeof POSTGRES_SSL_MODES)[number];

/** The portable fields of a PostgreSQLInstance claim this provider reads. */
export type PostgreSQLClaimSpec = SqlClaimSpec;

/** claimSpec reads a claim's spec as a PostgreSQLInstance spec (an absent spec is empty). */
export const claimSpec = sqlClaimSpec;

export const defaultAppDatabase = 'app';
export const defaultAppUser = 'app';
/** The superuser initdb creates in a dedicated instance. */
export const localSuperuser = 'postgres';

/** The PostgreSQL kinds' ResourceRefs, by plural. */
export const postgresqlRefs = {
  postgresqlservers: postgresqlServerKind.ref,
  localpostgresqlinstances: localPostgreSQLInstanceKind.ref,
} as const;
