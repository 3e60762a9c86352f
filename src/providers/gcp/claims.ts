/**
 * How PubSubTopic implements MessageQueue claims, SpannerDatabase and CloudSQLInstance
 * PostgreSQLInstance (CloudSQLInstance also MySQLInstance) claims, MemorystoreInstance
 * RedisCluster claims and GCSBucket Bucket claims: matchers (what Google can offer of the claim's portable fields),
 * configurators (a class template plus the claim → a new resource's spec, its ids derived from
 * the claim) and connection formatters (the details → exactly the keys the kind publishes).
 */
import semver from 'semver';
import { deepCopy, isPlainObject, type JsonObject, type KObject } from '../../machinery/object.js';
import { exactConnectionKeys } from '../connection-keys.js';
import { pricedByConfiguring } from '../prices.js';
import { capabilitiesWithRequirements } from '../requirements.js';
import { cloudSqlInstancePrice, gcsBucketPrice, memorystoreInstancePrice, pubSubTopicPrice, spannerDatabasePrice } from './claim-prices.js';
import { sqlClaimSpec } from '../sql-claim.js';
import { doesNotFit, fits, type ClaimImplementation, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../spi.js';
import {
  bucketClaimKind,
  cloudSqlInstanceSecretKeys,
  gcsBucketSecretKeys,
  memorystoreInstanceSecretKeys,
  messageQueueClaimKind,
  mysqlClaimKind,
  postgresqlClaimKind,
  pubSubTopicSecretKeys,
  redisClaimKind,
  spannerDatabaseSecretKeys,
  type CloudSQLInstance,
  type GCSBucket,
  type MemorystoreInstance,
  type PubSubTopic,
  type SpannerDatabase,
} from './kinds.js';
import { claimGcpName, gcpNameProblem } from './names.js';
import { isGcpRegion } from './price-table.js';
import { parseQuantity } from '../../machinery/quantity/quantity.js';

const claimSpec = (claim: KObject): JsonObject => (isPlainObject(claim.spec) ? (claim.spec as JsonObject) : {});
const MAX_RETENTION = 604800;
const MIN_RETENTION = 600;

/** matchPubSubTopic: Pub/Sub orders messages per ordering key only and may deliver twice, so fifo does not fit; retention is at most 7 days. */
export function matchPubSubTopic(claim: KObject, candidate: MatchCandidate<PubSubTopic>): MatchResult {
  const spec = claimSpec(claim);
  if (spec.fifo === true) return doesNotFit('Pub/Sub does not deliver first-in-first-out across a topic, nor exactly once by default (claim asks fifo)');
  const retention = spec.retentionSeconds;
  if (typeof retention === 'number' && retention > MAX_RETENTION)
    return doesNotFit(`Pub/Sub keeps messages at most ${MAX_RETENTION} s (claim asks ${retention} s)`);
  if (candidate.type === 'resource' && typeof retention === 'number') {
    const kept = candidate.resource.spec.forProvider?.messageRetentionSeconds ?? MAX_RETENTION;
    if (kept < retention) return doesNotFit(`subscription keeps messages ${kept} s, claim asks ${retention} s`);
  }
  return fits;
}

/**
 * matchSpannerDatabase: Spanner's PostgreSQL interface has no server version and no users,
 * so a claim asking a version or a masterUsername does not fit. databaseName is not used (the
 * database id is derived from the claim: ids are per instance, and an instance may be shared).
 */
export function matchSpannerDatabase(claim: KObject, _candidate: MatchCandidate<SpannerDatabase>): MatchResult {
  const spec = sqlClaimSpec(claim);
  if (spec.version !== undefined) return doesNotFit(`Spanner's PostgreSQL interface has no PostgreSQL server version (claim asks ${spec.version})`);
  if (spec.masterUsername !== undefined) return doesNotFit('Spanner has no database users: it authenticates service accounts (claim asks masterUsername)');
  return fits;
}

/** configured is the template's spec (a copy) with the claim's requirements and the region, written as capabilities.region too. */
function configured(claim: KObject, template: ResourceTemplate): { spec: JsonObject; forProvider: JsonObject } {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const forProvider: JsonObject = isPlainObject(spec.forProvider) ? deepCopy(spec.forProvider) : {};
  const templateRegion = isPlainObject(spec.capabilities) ? spec.capabilities.region : undefined;
  if (!isGcpRegion(forProvider.region) && isGcpRegion(templateRegion)) forProvider.region = templateRegion;
  const requirements = claimSpec(claim).requirements;
  const capabilities = capabilitiesWithRequirements(spec.capabilities, isPlainObject(requirements) ? requirements : undefined);
  if (isGcpRegion(forProvider.region)) capabilities.region = forProvider.region;
  spec.capabilities = capabilities;
  spec.forProvider = forProvider;
  return { spec, forProvider };
}

/** configurePubSubTopic: the topic (and so its subscription) named after the claim; the claim's retentionSeconds, at least 10 minutes. */
export function configurePubSubTopic(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template);
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  forProvider.topicId = claimGcpName('topic', ns, name);
  delete forProvider.subscriptionId;
  const retention = claimSpec(claim).retentionSeconds;
  if (typeof retention === 'number') forProvider.messageRetentionSeconds = Math.min(MAX_RETENTION, Math.max(MIN_RETENTION, retention));
  return spec;
}

/** configureSpannerDatabase: the database named after the claim, in the template's instance (else an instance named after the claim). */
export function configureSpannerDatabase(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template);
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  forProvider.databaseId = claimGcpName('database', ns, name);
  if (typeof forProvider.instanceId !== 'string' || forProvider.instanceId === '') forProvider.instanceId = claimGcpName('instance', ns, name);
  return spec;
}

/** The database versions Cloud SQL offers, newest last, with the semver each stands for (what a claim's range is matched against). */
export const CLOUD_SQL_VERSIONS = {
  POSTGRES: [
    ['POSTGRES_13', '13.0.0'],
    ['POSTGRES_14', '14.0.0'],
    ['POSTGRES_15', '15.0.0'],
    ['POSTGRES_16', '16.0.0'],
    ['POSTGRES_17', '17.0.0'],
  ],
  MYSQL: [
    ['MYSQL_5_7', '5.7.0'],
    ['MYSQL_8_0', '8.0.0'],
    ['MYSQL_8_4', '8.4.0'],
  ],
} as const satisfies Record<'POSTGRES' | 'MYSQL', readonly (readonly [string, string])[]>;

type CloudSqlEngine = keyof typeof CLOUD_SQL_VERSIONS;
const cloudSqlEngineOf = (claim: KObject): CloudSqlEngine => (claim.kind === 'MySQLInstance' ? 'MYSQL' : 'POSTGRES');
const semverOf = (engine: CloudSqlEngine, databaseVersion: string) => CLOUD_SQL_VERSIONS[engine].find(([v]) => v === databaseVersion)?.[1];

/** cloudSqlVersionFor is the newest version Cloud SQL offers for `engine` within the claim's range, or why there is none. */
export function cloudSqlVersionFor(engine: CloudSqlEngine, range: string | undefined): { version?: string; problem?: string } {
  if (range === undefined || range === '') return {};
  if (semver.validRange(range, { loose: true }) === null) return { problem: `version "${range}" is not a valid version range (want e.g. "16", ">= 14")` };
  const offered = [...CLOUD_SQL_VERSIONS[engine]].reverse();
  const found = offered.find(([, v]) => semver.satisfies(v, range, { loose: true }));
  return found
    ? { version: found[0] }
    : {
        problem: `Cloud SQL offers ${engine === 'MYSQL' ? 'MySQL' : 'PostgreSQL'} ${CLOUD_SQL_VERSIONS[engine].map(([, v]) => v.replace(/\.0(\.0)?$/, '')).join(', ')}, none within "${range}"`,
      };
}

/** matchCloudSqlInstance: the engine follows the claim kind; the version must be one Cloud SQL offers in the claim's range. */
export function matchCloudSqlInstance(claim: KObject, candidate: MatchCandidate<CloudSQLInstance>): MatchResult {
  const engine = cloudSqlEngineOf(claim);
  const spec = sqlClaimSpec(claim);
  const { problem } = cloudSqlVersionFor(engine, spec.version);
  if (problem) return doesNotFit(problem);
  const storageGb = claimStorageGb(claim);
  if (Number.isNaN(storageGb)) return doesNotFit('requirements.capacity.storage is not a quantity');
  if (storageGb !== undefined && storageGb > CLOUD_SQL_MAX_STORAGE_GB)
    return doesNotFit(`wants ${storageGb} GB of storage; a Cloud SQL instance offers at most ${CLOUD_SQL_MAX_STORAGE_GB} GB`);
  if (spec.masterUsername !== undefined && !/^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(spec.masterUsername)) {
    return doesNotFit(`Cloud SQL user names here are a letter, then letters, digits and _ (at most 32): claim asks "${spec.masterUsername}"`);
  }
  const fp =
    candidate.type === 'class'
      ? isPlainObject(candidate.template.spec?.forProvider)
        ? candidate.template.spec.forProvider
        : {}
      : (candidate.resource.spec.forProvider ?? {});
  const offeredEngine = (fp as { engine?: unknown }).engine;
  if (offeredEngine !== undefined && offeredEngine !== engine) return doesNotFit(`instance engine is ${String(offeredEngine)}, claim wants ${engine}`);
  if (candidate.type === 'resource' && spec.version) {
    const have = candidate.resource.spec.forProvider?.databaseVersion;
    const v = have ? semverOf(engine, have) : undefined;
    if (v && !semver.satisfies(v, spec.version, { loose: true })) {
      return doesNotFit(`instance version ${have} is not within "${spec.version}"`);
    }
  }
  return fits;
}

/** The most SSD storage a Cloud SQL instance has, in GB. */
export const CLOUD_SQL_MAX_STORAGE_GB = 65_536;

/** claimStorageGb reads a claim's requirements.capacity.storage in whole GB: undefined when absent, NaN when not a quantity. */
function claimStorageGb(claim: KObject): number | undefined {
  const requirements = claimSpec(claim).requirements;
  const capacity = isPlainObject(requirements) && isPlainObject(requirements.capacity) ? requirements.capacity : {};
  const size = capacity.storage;
  if (typeof size !== 'string' && typeof size !== 'number') return undefined;
  try {
    return Math.ceil(parseQuantity(String(size)).toNumber() / 1e9);
  } catch {
    return Number.NaN;
  }
}

/** configureCloudSqlInstance: the instance named after the claim, the engine from its kind, the version from its range, user and database from it, storage from its capacity. */
export function configureCloudSqlInstance(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template);
  const engine = cloudSqlEngineOf(claim);
  const c = sqlClaimSpec(claim);
  forProvider.instanceId = claimGcpName('sqlInstance', claim.metadata.namespace ?? '', claim.metadata.name ?? '');
  forProvider.engine = engine;
  const { version } = cloudSqlVersionFor(engine, c.version);
  if (version) forProvider.databaseVersion = version;
  else if (typeof forProvider.databaseVersion === 'string' && !forProvider.databaseVersion.startsWith(`${engine}_`)) delete forProvider.databaseVersion;
  if (c.masterUsername && /^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(c.masterUsername)) forProvider.username = c.masterUsername;
  if (c.databaseName && gcpNameProblem('sqlName', c.databaseName) === undefined) forProvider.databaseName = c.databaseName;
  const capacity = isPlainObject(spec.capabilities) && isPlainObject(spec.capabilities.capacity) ? spec.capabilities.capacity : {};
  const size = typeof capacity.storage === 'string' || typeof capacity.storage === 'number' ? capacity.storage : undefined;
  if (size !== undefined) {
    try {
      const gb = Math.ceil(parseQuantity(String(size)).toNumber() / 1e9);
      forProvider.storageGb = Math.min(CLOUD_SQL_MAX_STORAGE_GB, Math.max(10, gb));
    } catch {
      // Not a quantity: the template's storageGb (or the default) stands.
    }
  }
  return spec;
}

/** Memorystore's Redis versions, newest first, with the semver each stands for. */
export const MEMORYSTORE_VERSIONS = [
  ['REDIS_7_2', '7.2.0'],
  ['REDIS_7_0', '7.0.0'],
  ['REDIS_6_X', '6.2.0'],
  ['REDIS_5_0', '5.0.0'],
] as const;

/** matchMemorystoreInstance: Memorystore offers Redis 7.x and 6.x (and 5, 4 on older instances); an existing instance's eviction policy must be the claim's. */
export function matchMemorystoreInstance(claim: KObject, candidate: MatchCandidate<MemorystoreInstance>): MatchResult {
  const spec = claimSpec(claim);
  const range = typeof spec.version === 'string' ? spec.version : undefined;
  if (range !== undefined) {
    if (semver.validRange(range, { loose: true }) === null) return doesNotFit(`version "${range}" is not a valid version range (want e.g. "7", ">= 6")`);
    if (!MEMORYSTORE_VERSIONS.some(([, v]) => semver.satisfies(v, range, { loose: true }))) {
      return doesNotFit(`Memorystore offers Redis ${MEMORYSTORE_VERSIONS.map(([, v]) => v.replace(/\.0$/, '')).join(', ')}, none within "${range}"`);
    }
  }
  const memoryGb = memoryGbOf(claim);
  if (Number.isNaN(memoryGb)) return doesNotFit('requirements.capacity.memory is not a quantity');
  if (memoryGb !== undefined && memoryGb > MEMORYSTORE_MAX_GB)
    return doesNotFit(`wants ${memoryGb} GB of memory; Memorystore for Redis offers at most ${MEMORYSTORE_MAX_GB} GB`);
  if (candidate.type === 'resource' && memoryGb !== undefined && (candidate.resource.spec.forProvider?.memorySizeGb ?? 1) < memoryGb) {
    return doesNotFit(`instance has ${candidate.resource.spec.forProvider?.memorySizeGb ?? 1} GB of memory, claim wants ${memoryGb} GB`);
  }
  if (candidate.type === 'resource' && typeof spec.evictionPolicy === 'string') {
    const have = candidate.resource.spec.forProvider?.evictionPolicy;
    if (have !== undefined && have !== spec.evictionPolicy) return doesNotFit(`instance evicts ${have}, claim asks ${spec.evictionPolicy}`);
  }
  return fits;
}

/** configureMemorystoreInstance: the instance named after the claim, the newest version in its range, its eviction policy, the memory it asks (at least the template's). */
export function configureMemorystoreInstance(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template);
  const c = claimSpec(claim);
  forProvider.instanceId = claimGcpName('redisInstance', claim.metadata.namespace ?? '', claim.metadata.name ?? '');
  if (typeof c.version === 'string' && semver.validRange(c.version, { loose: true }) !== null) {
    const range = c.version;
    const found = MEMORYSTORE_VERSIONS.find(([, v]) => semver.satisfies(v, range, { loose: true }));
    if (found) forProvider.redisVersion = found[0];
  }
  if (typeof c.evictionPolicy === 'string') forProvider.evictionPolicy = c.evictionPolicy;
  const memoryGb = memoryGbOf(claim);
  if (memoryGb !== undefined && !Number.isNaN(memoryGb)) {
    const templateGb = typeof forProvider.memorySizeGb === 'number' ? forProvider.memorySizeGb : 1;
    forProvider.memorySizeGb = Math.min(MEMORYSTORE_MAX_GB, Math.max(templateGb, memoryGb));
  }
  return spec;
}

/** The most memory a Memorystore for Redis instance has, in GB (as memorySizeGb counts, GiB). */
const MEMORYSTORE_MAX_GB = 300;

/** memoryGbOf reads a claim's requirements.capacity.memory as whole GB (GiB, rounded up): undefined when absent, NaN when not a quantity. */
function memoryGbOf(claim: KObject): number | undefined {
  const requirements = isPlainObject(claim.spec) && isPlainObject(claim.spec.requirements) ? claim.spec.requirements : {};
  const capacity = isPlainObject(requirements.capacity) ? requirements.capacity : {};
  const memory = capacity.memory;
  if (typeof memory !== 'string' && typeof memory !== 'number') return undefined;
  try {
    return Math.max(1, Math.ceil(parseQuantity(String(memory)).toNumber() / 2 ** 30 - 1e-9));
  } catch {
    return Number.NaN;
  }
}

/** matchGcsBucket: versioning and public read are offered; an existing bucket fits when it has what the claim asks. */
export function matchGcsBucket(claim: KObject, candidate: MatchCandidate<GCSBucket>): MatchResult {
  const spec = claimSpec(claim);
  if (candidate.type === 'class') return fits;
  const fp = candidate.resource.spec.forProvider;
  if (spec.versioning === true && fp?.versioning !== true) return doesNotFit('bucket is not versioned, claim asks versioning');
  if (spec.publicRead === true && fp?.publicRead !== true) return doesNotFit('bucket is not publicly readable, claim asks publicRead');
  return fits;
}

/** configureGcsBucket: the bucket's name is left to the client (global names carry the project); the claim's versioning and public read. */
export function configureGcsBucket(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template);
  delete forProvider.bucketName;
  const c = claimSpec(claim);
  if (c.versioning === true) forProvider.versioning = true;
  if (c.publicRead === true) forProvider.publicRead = true;
  return spec;
}

export const cloudSqlInstanceClaims: ClaimImplementation<CloudSQLInstance>[] = [postgresqlClaimKind, mysqlClaimKind].map((claimKind) => ({
  claimKind,
  connectionSecretKeys: cloudSqlInstanceSecretKeys,
  match: matchCloudSqlInstance,
  configure: configureCloudSqlInstance,
  price: pricedByConfiguring(configureCloudSqlInstance, cloudSqlInstancePrice),
  formatConnection: (details) => exactConnectionKeys('CloudSQLInstance', cloudSqlInstanceSecretKeys, details),
}));

export const memorystoreInstanceClaims: ClaimImplementation<MemorystoreInstance>[] = [
  {
    claimKind: redisClaimKind,
    connectionSecretKeys: memorystoreInstanceSecretKeys,
    match: matchMemorystoreInstance,
    configure: configureMemorystoreInstance,
    price: pricedByConfiguring(configureMemorystoreInstance, memorystoreInstancePrice),
    formatConnection: (details) => exactConnectionKeys('MemorystoreInstance', memorystoreInstanceSecretKeys, details),
  },
];

export const gcsBucketClaims: ClaimImplementation<GCSBucket>[] = [
  {
    claimKind: bucketClaimKind,
    connectionSecretKeys: gcsBucketSecretKeys,
    match: matchGcsBucket,
    configure: configureGcsBucket,
    price: pricedByConfiguring(configureGcsBucket, gcsBucketPrice),
    formatConnection: (details) => exactConnectionKeys('GCSBucket', gcsBucketSecretKeys, details),
  },
];

export const pubSubTopicClaims: ClaimImplementation<PubSubTopic>[] = [
  {
    claimKind: messageQueueClaimKind,
    connectionSecretKeys: pubSubTopicSecretKeys,
    match: matchPubSubTopic,
    configure: configurePubSubTopic,
    price: pricedByConfiguring(configurePubSubTopic, pubSubTopicPrice),
    formatConnection: (details) => exactConnectionKeys('PubSubTopic', pubSubTopicSecretKeys, details),
  },
];

export const spannerDatabaseClaims: ClaimImplementation<SpannerDatabase>[] = [
  {
    claimKind: postgresqlClaimKind,
    connectionSecretKeys: spannerDatabaseSecretKeys,
    match: matchSpannerDatabase,
    configure: configureSpannerDatabase,
    price: pricedByConfiguring(configureSpannerDatabase, spannerDatabasePrice),
    formatConnection: (details) => exactConnectionKeys('SpannerDatabase', spannerDatabaseSecretKeys, details),
  },
];
