export { localMySQLInstanceKind, mysqlServerKind, mysqlRefs, mysqlInstanceClaim, mysqlSecretKeys, type LocalMySQLInstance, type MySQLServer } from './kinds.js';
export { mysqlServerConcreteKind, mysqlServerConnector, sharedServerShare as mysqlSharedServerShare, MySQLServerClient } from './shared-server.js';
export { localMySQLInstanceConcreteKind, LocalMySQLInstanceClient, instanceShare as mysqlInstanceShare } from './local-instance.js';
export { MariaDbServers, type MariaDbInstanceState, type MariaDbServersOptions, type MariaDbServerStatus } from './local-servers.js';
export { resolveMariaDbBinaries, mariadbBinEnv, type MariaDbBinaries, type ResolveMariaDbOptions } from './binaries.js';
export { claimIdentifier as mysqlClaimIdentifier } from './names.js';
export { formatMySqlConnection, mysqlUri, type MySqlEndpoint } from './connection.js';
export { parseServerVersion as parseMySqlVersion, versionMismatch as mysqlVersionMismatch } from './version.js';
export { createMySqlKinds, mysqlInstancesRoot, mariadbInstancesDirEnv, type MySqlKinds, type MySqlKindsOptions } from './setup.js';
