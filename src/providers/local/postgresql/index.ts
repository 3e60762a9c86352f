export {
  LOCAL_DATABASE_GROUP,
  POSTGRES_SSL_MODES,
  localPostgreSQLInstanceKind,
  postgresqlServerKind,
  postgresqlRefs,
  postgresqlInstanceClaim,
  postgresqlSecretKeys,
  defaultAppDatabase,
  defaultAppUser,
  type LocalPostgreSQLInstance,
  type PostgreSQLServer,
  type SslMode,
} from './kinds.js';
export { postgresqlServerConcreteKind, sharedServerConnector, sharedServerShare, SharedServerClient } from './shared-server.js';
export { localPostgreSQLInstanceConcreteKind, LocalInstanceClient, instanceShare } from './local-instance.js';
export { LocalServers, superuserConfig, type InstanceState, type LocalServersOptions, type ServerStatus } from './local-servers.js';
export { resolveBinaries, postgresBinEnv, type PostgresBinaries, type ResolveBinariesOptions } from './binaries.js';
export { resolveRunAs, postgresUserEnv, type RunAs } from '../process/run-as.js';
export { claimIdentifier, instanceDirectoryName } from './names.js';
export { formatPostgresConnection, postgresUri, endpointDetails, type PostgresEndpoint } from './connection.js';
export { matchSharedServer, localInstanceMatcher, configureLocalInstance } from './matchers.js';
