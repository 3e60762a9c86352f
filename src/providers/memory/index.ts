export { memoryProvider, createMemoryProvider, type MemoryProvider, type MemoryProviderOptions } from './memory-provider.js';
export {
  MemoryDatabases,
  randomPassword,
  shareIdentifier,
  type MemoryDatabaseRecord,
  type MemoryDatabaseSettings,
  type MemoryDatabasesOptions,
  type MemoryShare,
  type MemoryShareRequest,
} from './memory-databases.js';
export { MemoryDatabaseClient, memoryDatabaseConcreteKind, externalNameOf, desiredSettings, connectionDetailsOf } from './memory-database.js';
export { configureMemoryDatabase, matchMemoryDatabase, concreteVersion } from './matchers.js';
export { sqlConnectionFormatter, sqlUri, defaultPortOf, type SqlEngine, type SqlEndpoint } from './connection.js';
export { MEMORY_DATABASE_GROUP, memoryDatabaseKind, memoryRefs, memoryHost, type MemoryDatabase, type MemoryDatabaseSpec } from './kinds.js';
