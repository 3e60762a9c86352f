/**
 * How BlobContainer implements Bucket claims and StorageQueue implements MessageQueue claims:
 * matchers (what Azure can offer of the claim's portable fields), configurators (a class
 * template plus the claim → a new resource's spec, named after the claim) and connection
 * formatters (the details → exactly the keys the kind publishes).
 */
import semver from 'semver';
import { deepCopy, isPlainObject, type JsonObject, type KObject } from '../../machinery/object.js';
import { exactConnectionKeys } from '../connection-keys.js';
import { pricedByConfiguring } from '../prices.js';
import { capabilitiesWithRequirements } from '../requirements.js';
import { blobContainerPrice, flexibleServerPrice, redisCachePrice, storageQueuePrice } from './claim-prices.js';
import { doesNotFit, fits, type ClaimImplementation, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../spi.js';
import { sqlClaimSpec } from '../sql-claim.js';
import {
  blobContainerSecretKeys,
  bucketClaimKind,
  flexibleServerSecretKeys,
  messageQueueClaimKind,
  mysqlClaimKind,
  postgresqlClaimKind,
  redisCacheSecretKeys,
  redisClaimKind,
  storageQueueSecretKeys,
  type BlobContainer,
  type MySQLFlexibleServer,
  type PostgreSQLFlexibleServer,
  type RedisCache,
  type StorageQueue,
} from './kinds.js';
import { claimAzureName } from './names.js';
import { AZURE_LOCATIONS, MYSQL_VERSIONS, POSTGRES_VERSIONS } from './price-table.js';
import { parseQuantity } from '../../machinery/quantity/quantity.js';

const claimSpec = (claim: KObject): JsonObject => (isPlainObject(claim.spec) ? (claim.spec as JsonObject) : {});
const forProviderOf = (spec: JsonObject | undefined): JsonObject => (spec && isPlainObject(spec.forProvider) ? spec.forProvider : {});
const isLocation = (v: unknown): v is string => typeof v === 'string' && (AZURE_LOCATIONS as readonly string[]).includes(v);

/** matchBlobContainer: versioning is an account setting (no fit); a public container fits only a claim asking publicRead, and the reverse. */
export function matchBlobContainer(claim: KObject, candidate: MatchCandidate<BlobContainer>): MatchResult {
  const spec = claimSpec(claim);
  if (spec.versioning === true) return doesNotFit('BlobContainer offers no versioning: blob versioning is a setting of the whole storage account');
  if (candidate.type === 'class') return fits;
  const access = candidate.resource.spec.forProvider?.publicAccess ?? 'None';
  const wantsPublic = spec.publicRead === true;
  if (wantsPublic && access === 'None') return doesNotFit('container is not public (publicAccess None), claim asks publicRead');
  if (!wantsPublic && access !== 'None') return doesNotFit(`container is public (publicAccess ${access}), claim does not ask publicRead`);
  return fits;
}

/** matchStorageQueue: Azure Storage queues promise neither order nor exactly-once delivery, so fifo does not fit. */
export function matchStorageQueue(claim: KObject, _candidate: MatchCandidate<StorageQueue>): MatchResult {
  if (claimSpec(claim).fifo === true) {
    return doesNotFit('Azure Storage queues do not deliver first-in-first-out or exactly once (claim asks fifo)');
  }
  return fits;
}

/**
 * configured is the template's spec (a copy) with the claim's name, requirements and the
 * location: `forProvider[nameField]` is the claim's own name (a template's name would put
 * every claim in one container), the location comes from the template (or its capabilities'
 * region, when that is an Azure location) and is written as capabilities.region.
 */
function configured(
  claim: KObject,
  template: ResourceTemplate,
  nameField: 'containerName' | 'queueName' | 'serverName' | 'cacheName',
): { spec: JsonObject; forProvider: JsonObject } {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const forProvider: JsonObject = deepCopy(forProviderOf(spec));
  forProvider[nameField] = claimAzureName(claim.metadata.namespace ?? '', claim.metadata.name ?? '');
  const templateRegion = isPlainObject(spec.capabilities) ? spec.capabilities.region : undefined;
  if (!isLocation(forProvider.location) && isLocation(templateRegion)) forProvider.location = templateRegion;
  const requirements = claimSpec(claim).requirements;
  const capabilities = capabilitiesWithRequirements(spec.capabilities, isPlainObject(requirements) ? requirements : undefined);
  if (isLocation(forProvider.location)) capabilities.region = forProvider.location;
  spec.capabilities = capabilities;
  spec.forProvider = forProvider;
  return { spec, forProvider };
}

/** configureBlobContainer: publicAccess follows the claim's publicRead (Blob, or the template's Container), else None. */
export function configureBlobContainer(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template, 'containerName');
  const templateAccess = forProvider.publicAccess;
  forProvider.publicAccess = claimSpec(claim).publicRead === true ? (templateAccess === 'Container' ? 'Container' : 'Blob') : 'None';
  return spec;
}

export function configureStorageQueue(claim: KObject, template: ResourceTemplate): JsonObject {
  return configured(claim, template, 'queueName').spec;
}

/** The versions each engine offers, oldest first (what a claim's version range is matched against). */
const ENGINE_VERSIONS = { postgres: POSTGRES_VERSIONS, mysql: MYSQL_VERSIONS } as const;

/** flexibleVersionFor is the newest version Azure offers for `engine` within the claim's range, or why there is none. */
export function flexibleVersionFor(engine: 'postgres' | 'mysql', range: string | undefined): { version?: string; problem?: string } {
  if (range === undefined || range === '') return {};
  if (semver.validRange(range, { loose: true }) === null) return { problem: `version "${range}" is not a valid version range (want e.g. "16", ">= 14")` };
  const offered = [...ENGINE_VERSIONS[engine]].reverse();
  const version = offered.find(
    (v) => semver.intersects(semver.coerce(v)?.version ?? v, range, { loose: true }) || semver.intersects(v, range, { loose: true }),
  );
  const name = engine === 'mysql' ? 'MySQL' : 'PostgreSQL';
  return version ? { version } : { problem: `Azure's ${name} flexible server offers ${ENGINE_VERSIONS[engine].join(', ')}, none within "${range}"` };
}

/** The administrator logins Azure refuses. */
const RESERVED_LOGINS = new Set(['admin', 'administrator', 'root', 'guest', 'public', 'azure_superuser', 'azure_pg_admin', 'sa']);

/** The most storage a flexible server has, in GB. */
export const FLEXIBLE_SERVER_MAX_STORAGE_GB = 16384;

/** claimCapacity reads a claim's requirements.capacity[key] in bytes: undefined when absent, NaN when not a quantity. */
function claimCapacity(claim: KObject, key: 'storage' | 'memory'): number | undefined {
  const requirements = claimSpec(claim).requirements;
  const capacity = isPlainObject(requirements) && isPlainObject(requirements.capacity) ? requirements.capacity : {};
  const value = capacity[key];
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    return parseQuantity(String(value)).toNumber();
  } catch {
    return Number.NaN;
  }
}

function matchFlexible(engine: 'postgres' | 'mysql', claim: KObject, candidate: MatchCandidate<PostgreSQLFlexibleServer | MySQLFlexibleServer>): MatchResult {
  const spec = sqlClaimSpec(claim);
  const { problem } = flexibleVersionFor(engine, spec.version);
  if (problem) return doesNotFit(problem);
  const storage = claimCapacity(claim, 'storage');
  if (storage !== undefined && Number.isNaN(storage)) return doesNotFit('requirements.capacity.storage is not a quantity');
  if (storage !== undefined && Math.ceil(storage / 1e9) > FLEXIBLE_SERVER_MAX_STORAGE_GB)
    return doesNotFit(`wants ${Math.ceil(storage / 1e9)} GB of storage; a flexible server offers at most ${FLEXIBLE_SERVER_MAX_STORAGE_GB} GB`);
  if (candidate.type === 'resource' && spec.version) {
    const have = candidate.resource.spec.forProvider?.version;
    const coerced = have ? (semver.coerce(have)?.version ?? have) : undefined;
    if (coerced && !semver.intersects(coerced, spec.version, { loose: true }))
      return doesNotFit(`server version ${have ?? ''} is not within "${spec.version}"`);
  }
  return fits;
}

/** matchPostgreSQLFlexibleServer: the version must be one Azure offers within the claim's range. */
export const matchPostgreSQLFlexibleServer = (claim: KObject, candidate: MatchCandidate<PostgreSQLFlexibleServer>) =>
  matchFlexible('postgres', claim, candidate);
/** matchMySQLFlexibleServer: the version must be one Azure offers within the claim's range. */
export const matchMySQLFlexibleServer = (claim: KObject, candidate: MatchCandidate<MySQLFlexibleServer>) => matchFlexible('mysql', claim, candidate);

/** storageGbOf reads a quantity ("25Gi") as whole GB, within a flexible server's 32 to 16384. */
export function storageGbOf(size: unknown, fallback: number): number {
  if (typeof size !== 'string' && typeof size !== 'number') return fallback;
  try {
    return Math.min(16384, Math.max(32, Math.ceil(parseQuantity(String(size)).toNumber() / 1e9)));
  } catch {
    return fallback;
  }
}

function configureFlexible(engine: 'postgres' | 'mysql', claim: KObject, template: ResourceTemplate): JsonObject {
  const c = sqlClaimSpec(claim);
  const { spec, forProvider } = configured(claim, template, 'serverName');
  const { version } = flexibleVersionFor(engine, c.version);
  if (version) forProvider.version = version;
  if (c.masterUsername && /^[a-z][a-z0-9_]{0,62}$/.test(c.masterUsername) && !RESERVED_LOGINS.has(c.masterUsername))
    forProvider.administratorLogin = c.masterUsername;
  if (c.databaseName && /^[A-Za-z][A-Za-z0-9_]{0,62}$/.test(c.databaseName)) forProvider.databaseName = c.databaseName;
  const capacity = isPlainObject(spec.capabilities) && isPlainObject(spec.capabilities.capacity) ? spec.capabilities.capacity : {};
  const fallback = typeof forProvider.storageSizeGB === 'number' ? forProvider.storageSizeGB : 32;
  forProvider.storageSizeGB = storageGbOf(capacity.storage, fallback);
  return spec;
}

export const configurePostgreSQLFlexibleServer = (claim: KObject, template: ResourceTemplate) => configureFlexible('postgres', claim, template);
export const configureMySQLFlexibleServer = (claim: KObject, template: ResourceTemplate) => configureFlexible('mysql', claim, template);

/** The Redis version Azure Cache for Redis offers (4 is retired). */
export const AZURE_REDIS_VERSION = '6.0.0';
/** Azure Cache for Redis's default maxmemory-policy (the only one Conductor offers: it does not set redisConfiguration). */
export const AZURE_REDIS_EVICTION_POLICY = 'volatile-lru';

/** The memory of each Azure Cache for Redis size, in GB (GiB): C0 to C6 (Basic, Standard) and P1 to P5 (Premium). */
export const REDIS_CACHE_MEMORY_GB: Readonly<Record<'C' | 'P', readonly number[]>> = {
  C: [0.25, 1, 2.5, 6, 13, 26, 53],
  P: [0, 6, 13, 26, 53, 120],
};

/** The SKU, family and size a cache spec asks for (schema defaults: Basic C0, Premium P1). */
function redisSizeOf(forProvider: JsonObject): { sku: string; family: 'C' | 'P'; capacity: number; gb: number } {
  const sku = typeof forProvider.sku === 'string' ? forProvider.sku : 'Basic';
  const family = sku === 'Premium' ? 'P' : 'C';
  const capacity = typeof forProvider.capacity === 'number' ? forProvider.capacity : family === 'P' ? 1 : 0;
  return { sku, family, capacity, gb: REDIS_CACHE_MEMORY_GB[family][capacity] ?? 0 };
}

/** The smallest size of `family` from `from` up that holds `bytes`, or undefined when none does. */
function redisCapacityFor(family: 'C' | 'P', from: number, bytes: number): number | undefined {
  const sizes = REDIS_CACHE_MEMORY_GB[family];
  for (let c = Math.max(from, family === 'P' ? 1 : 0); c < sizes.length; c++) if (sizes[c] * 2 ** 30 >= bytes - 1e-6) return c;
  return undefined;
}

const gbOf = (bytes: number) => Math.round((bytes / 2 ** 30) * 100) / 100;

/**
 * matchRedisCache: the claim's version range must hold Redis 6; an eviction policy other than
 * Azure's default does not fit; the memory asked must fit the cache (an existing one) or a size
 * of the class's SKU (configure grows the template's size to it) — at most 53 GB for Basic and
 * Standard, 120 GB for Premium.
 */
export function matchRedisCache(claim: KObject, candidate: MatchCandidate<RedisCache>): MatchResult {
  const spec = claimSpec(claim);
  const range = typeof spec.version === 'string' && spec.version !== '' ? spec.version : undefined;
  if (range !== undefined) {
    if (semver.validRange(range, { loose: true }) === null) return doesNotFit(`version "${range}" is not a valid version range (want e.g. "6", ">= 6")`);
    if (!semver.satisfies(AZURE_REDIS_VERSION, range, { loose: true })) return doesNotFit(`Azure Cache for Redis offers Redis 6, not within "${range}"`);
  }
  if (typeof spec.evictionPolicy === 'string' && spec.evictionPolicy !== AZURE_REDIS_EVICTION_POLICY)
    return doesNotFit(`RedisCache keeps Azure's maxmemory-policy ${AZURE_REDIS_EVICTION_POLICY}, claim asks ${spec.evictionPolicy}`);
  const memory = claimCapacity(claim, 'memory');
  if (memory === undefined) return fits;
  if (Number.isNaN(memory)) return doesNotFit('requirements.capacity.memory is not a quantity');
  if (memory > REDIS_CACHE_MEMORY_GB.P[5] * 2 ** 30)
    return doesNotFit(`wants ${gbOf(memory)} GB of memory; Azure Cache for Redis offers at most ${REDIS_CACHE_MEMORY_GB.P[5]} GB (Premium P5)`);
  if (candidate.type === 'resource') {
    const have = redisSizeOf(forProviderOf(candidate.resource.spec));
    if (have.gb * 2 ** 30 < memory)
      return doesNotFit(`cache is ${have.sku} ${have.family}${have.capacity} with ${have.gb} GB of memory, claim wants ${gbOf(memory)} GB`);
    return fits;
  }
  const size = redisSizeOf(forProviderOf(candidate.template.spec));
  if (redisCapacityFor(size.family, size.capacity, memory) === undefined) {
    const largest = REDIS_CACHE_MEMORY_GB[size.family].length - 1;
    return doesNotFit(
      `wants ${gbOf(memory)} GB of memory; a ${size.sku} cache holds at most ${REDIS_CACHE_MEMORY_GB[size.family][largest]} GB (${size.family}${largest}) — use a Premium class`,
    );
  }
  return fits;
}

/** configureRedisCache: named after the claim; the template's size grown to the smallest of its SKU that holds the memory asked. */
export function configureRedisCache(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template, 'cacheName');
  const memory = claimCapacity(claim, 'memory');
  if (memory !== undefined && !Number.isNaN(memory)) {
    const size = redisSizeOf(forProvider);
    const capacity = redisCapacityFor(size.family, size.capacity, memory);
    if (capacity !== undefined && capacity !== size.capacity) forProvider.capacity = capacity;
  }
  return spec;
}

export const postgresqlFlexibleServerClaims: ClaimImplementation<PostgreSQLFlexibleServer>[] = [
  {
    claimKind: postgresqlClaimKind,
    connectionSecretKeys: flexibleServerSecretKeys,
    match: matchPostgreSQLFlexibleServer,
    configure: configurePostgreSQLFlexibleServer,
    price: pricedByConfiguring(configurePostgreSQLFlexibleServer, flexibleServerPrice('postgres')),
    formatConnection: (details) => exactConnectionKeys('PostgreSQLFlexibleServer', flexibleServerSecretKeys, details),
  },
];

export const mysqlFlexibleServerClaims: ClaimImplementation<MySQLFlexibleServer>[] = [
  {
    claimKind: mysqlClaimKind,
    connectionSecretKeys: flexibleServerSecretKeys,
    match: matchMySQLFlexibleServer,
    configure: configureMySQLFlexibleServer,
    price: pricedByConfiguring(configureMySQLFlexibleServer, flexibleServerPrice('mysql')),
    formatConnection: (details) => exactConnectionKeys('MySQLFlexibleServer', flexibleServerSecretKeys, details),
  },
];

export const redisCacheClaims: ClaimImplementation<RedisCache>[] = [
  {
    claimKind: redisClaimKind,
    connectionSecretKeys: redisCacheSecretKeys,
    match: matchRedisCache,
    configure: configureRedisCache,
    price: pricedByConfiguring(configureRedisCache, redisCachePrice),
    formatConnection: (details) => exactConnectionKeys('RedisCache', redisCacheSecretKeys, details),
  },
];

export const blobContainerClaims: ClaimImplementation<BlobContainer>[] = [
  {
    claimKind: bucketClaimKind,
    connectionSecretKeys: blobContainerSecretKeys,
    match: matchBlobContainer,
    configure: configureBlobContainer,
    price: pricedByConfiguring(configureBlobContainer, blobContainerPrice),
    formatConnection: (details) => exactConnectionKeys('BlobContainer', blobContainerSecretKeys, details),
  },
];

export const storageQueueClaims: ClaimImplementation<StorageQueue>[] = [
  {
    claimKind: messageQueueClaimKind,
    connectionSecretKeys: storageQueueSecretKeys,
    match: matchStorageQueue,
    configure: configureStorageQueue,
    price: pricedByConfiguring(configureStorageQueue, storageQueuePrice),
    formatConnection: (details) => exactConnectionKeys('StorageQueue', storageQueueSecretKeys, details),
  },
];
