/**
 * How S3Bucket implements Bucket claims, SQSQueue MessageQueue claims, RDSInstance
 * PostgreSQLInstance and MySQLInstance claims and ElastiCacheReplicationGroup RedisCluster
 * claims: matchers (what AWS can offer of the claim's
 * portable fields), configurators (a class template plus the claim → a new resource's spec,
 * named after the claim) and connection formatters (exactly the keys the kind publishes).
 */
import semver from 'semver';
import { deepCopy, isPlainObject, type JsonObject, type KObject } from '../../machinery/object.js';
import { parseQuantity } from '../../machinery/quantity/quantity.js';
import { exactConnectionKeys } from '../connection-keys.js';
import { pricedByConfiguring } from '../prices.js';
import { capabilitiesWithRequirements } from '../requirements.js';
import { elastiCacheReplicationGroupPrice, rdsInstancePrice, s3BucketPrice, sqsQueuePrice } from './claim-prices.js';
import { sqlClaimSpec } from '../sql-claim.js';
import { doesNotFit, fits, type ClaimImplementation, type ConnectionDetails, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../spi.js';
import {
  bucketClaimKind,
  elastiCacheReplicationGroupSecretKeys,
  messageQueueClaimKind,
  mysqlClaimKind,
  postgresqlClaimKind,
  rdsInstanceSecretKeys,
  redisClaimKind,
  s3BucketSecretKeys,
  sqsQueueSecretKeys,
  type ElastiCacheReplicationGroup,
  type RDSInstance,
  type S3Bucket,
  type SQSQueue,
} from './kinds.js';
import { claimAwsName } from './names.js';
import {
  ELASTICACHE_NODE_MEMORY_GIB,
  ELASTICACHE_NODE_TYPES,
  ELASTICACHE_REDIS_VERSIONS,
  isAwsRegion,
  type ElastiCacheNodeType,
  type RdsEngine,
} from './price-table.js';
import { storageGiOf } from './settings.js';

const claimSpec = (claim: KObject): JsonObject => (isPlainObject(claim.spec) ? (claim.spec as JsonObject) : {});
const forProviderOf = (spec: JsonObject | undefined): JsonObject => (spec && isPlainObject(spec.forProvider) ? spec.forProvider : {});

/** matchS3Bucket: publicRead is not offered; a bucket fits a claim asking versioning only when versioned. */
export function matchS3Bucket(claim: KObject, candidate: MatchCandidate<S3Bucket>): MatchResult {
  const spec = claimSpec(claim);
  if (spec.publicRead === true) {
    return doesNotFit('S3Bucket offers no public buckets yet (that needs a bucket policy and Block Public Access turned off): claim asks publicRead');
  }
  if (candidate.type === 'class') return fits;
  const versioned = candidate.resource.spec.forProvider?.versioning === true;
  if (spec.versioning === true && !versioned) return doesNotFit('bucket is not versioned, claim asks versioning');
  return fits;
}

/** The longest retention SQS keeps a message: 14 days. */
export const SQS_MAX_RETENTION = 1_209_600;

/** matchSQSQueue: a queue fits when it is FIFO exactly when the claim asks fifo, and keeps messages at least as long as asked. */
export function matchSQSQueue(claim: KObject, candidate: MatchCandidate<SQSQueue>): MatchResult {
  const spec = claimSpec(claim);
  const retention = typeof spec.retentionSeconds === 'number' ? spec.retentionSeconds : undefined;
  if (retention !== undefined && retention > SQS_MAX_RETENTION)
    return doesNotFit(`SQS keeps messages at most 14 days (${SQS_MAX_RETENTION} s), claim asks ${retention}`);
  if (candidate.type === 'class') return fits;
  const fp = candidate.resource.spec.forProvider;
  const fifo = fp?.fifo === true;
  if (fifo !== (spec.fifo === true)) return doesNotFit(fifo ? 'queue is FIFO, claim does not ask fifo' : 'queue is not FIFO, claim asks fifo');
  const kept = fp?.messageRetentionSeconds ?? 345_600;
  if (retention !== undefined && kept < retention) return doesNotFit(`queue keeps messages ${kept} s, claim asks ${retention}`);
  return fits;
}

/** The major versions RDS offers per engine (what a claim's version range is matched against). */
export const RDS_MAJOR_VERSIONS: Record<RdsEngine, readonly string[]> = {
  postgres: ['13', '14', '15', '16', '17'],
  mysql: ['8.0', '8.4'],
};

/** rdsVersionFor is the newest major version RDS offers for `engine` within the claim's range, or why there is none. */
export function rdsVersionFor(engine: RdsEngine, range: string | undefined): { version?: string; problem?: string } {
  if (range === undefined || range === '') return {};
  if (semver.validRange(range, { loose: true }) === null) return { problem: `version "${range}" is not a valid version range (want e.g. "16", ">= 14")` };
  const offered = [...RDS_MAJOR_VERSIONS[engine]].reverse();
  const version = offered.find((v) => semver.intersects(v, range, { loose: true }));
  return version ? { version } : { problem: `RDS offers ${engine} ${RDS_MAJOR_VERSIONS[engine].join(', ')}, none within "${range}"` };
}

const engineOf = (claim: KObject): RdsEngine => (claim.kind === 'MySQLInstance' ? 'mysql' : 'postgres');

/** The most gp2/gp3 storage an RDS instance has, in GiB. */
export const RDS_MAX_STORAGE_GI = 65_536;

/** matchRDSInstance: the engine follows the claim kind; the version must be one RDS offers in the claim's range. */
export function matchRDSInstance(claim: KObject, candidate: MatchCandidate<RDSInstance>): MatchResult {
  const engine = engineOf(claim);
  const spec = sqlClaimSpec(claim);
  const { problem } = rdsVersionFor(engine, spec.version);
  if (problem) return doesNotFit(problem);
  const requirements = claimSpec(claim).requirements;
  const capacity = isPlainObject(requirements) && isPlainObject(requirements.capacity) ? requirements.capacity : {};
  if (typeof capacity.storage === 'string' || typeof capacity.storage === 'number') {
    let gi: number;
    try {
      gi = Math.ceil(parseQuantity(String(capacity.storage)).toNumber() / 2 ** 30 - 1e-9);
    } catch {
      return doesNotFit('requirements.capacity.storage is not a quantity');
    }
    if (gi > RDS_MAX_STORAGE_GI) return doesNotFit(`wants ${gi} GiB of storage; an RDS instance offers at most ${RDS_MAX_STORAGE_GI} GiB`);
  }
  const offeredEngine = candidate.type === 'class' ? forProviderOf(candidate.template.spec).engine : candidate.resource.spec.forProvider?.engine;
  if (offeredEngine !== undefined && offeredEngine !== engine) return doesNotFit(`instance engine is ${String(offeredEngine)}, claim wants ${engine}`);
  if (candidate.type === 'resource' && spec.version) {
    const have = candidate.resource.spec.forProvider?.engineVersion;
    if (have && !semver.intersects(have, spec.version, { loose: true })) return doesNotFit(`instance version ${have} is not within "${spec.version}"`);
  }
  return fits;
}

/**
 * configured is the template's spec (a copy) with the claim's name, requirements and region:
 * `forProvider[nameField]` is the claim's own name (a template's would put every claim in one
 * bucket), the region comes from the template (or its capabilities' region) and is written as
 * capabilities.region.
 */
function configured(claim: KObject, template: ResourceTemplate, nameField: string, name: string): { spec: JsonObject; forProvider: JsonObject } {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const forProvider: JsonObject = deepCopy(forProviderOf(spec));
  forProvider[nameField] = name;
  const templateRegion = isPlainObject(spec.capabilities) ? spec.capabilities.region : undefined;
  if (!isAwsRegion(forProvider.region) && isAwsRegion(templateRegion)) forProvider.region = templateRegion;
  const requirements = claimSpec(claim).requirements;
  const capabilities = capabilitiesWithRequirements(spec.capabilities, isPlainObject(requirements) ? requirements : undefined);
  if (isAwsRegion(forProvider.region)) capabilities.region = forProvider.region;
  spec.capabilities = capabilities;
  spec.forProvider = forProvider;
  return { spec, forProvider };
}

const ns = (claim: KObject) => claim.metadata.namespace ?? '';
const nm = (claim: KObject) => claim.metadata.name ?? '';

export function configureS3Bucket(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template, 'bucketName', claimAwsName('bucket', ns(claim), nm(claim)));
  if (claimSpec(claim).versioning === true) forProvider.versioning = true;
  return spec;
}

export function configureSQSQueue(claim: KObject, template: ResourceTemplate): JsonObject {
  const c = claimSpec(claim);
  const fifo = c.fifo === true;
  const { spec, forProvider } = configured(claim, template, 'queueName', claimAwsName('queue', ns(claim), nm(claim), fifo));
  forProvider.fifo = fifo;
  if (typeof c.retentionSeconds === 'number') forProvider.messageRetentionSeconds = Math.min(SQS_MAX_RETENTION, Math.max(60, c.retentionSeconds));
  return spec;
}

/** configureRDSInstance: the engine from the claim kind, the version from its range, user and database from the claim, storage from its capacity. */
export function configureRDSInstance(claim: KObject, template: ResourceTemplate): JsonObject {
  const engine = engineOf(claim);
  const c = sqlClaimSpec(claim);
  const { spec, forProvider } = configured(claim, template, 'instanceIdentifier', claimAwsName('instance', ns(claim), nm(claim)));
  forProvider.engine = engine;
  const { version } = rdsVersionFor(engine, c.version);
  if (version) forProvider.engineVersion = version;
  if (c.masterUsername && /^[A-Za-z][A-Za-z0-9_]{0,15}$/.test(c.masterUsername)) forProvider.masterUsername = c.masterUsername;
  if (c.databaseName && /^[A-Za-z][A-Za-z0-9_]{0,62}$/.test(c.databaseName)) forProvider.databaseName = c.databaseName;
  const capacity = isPlainObject(spec.capabilities) && isPlainObject(spec.capabilities.capacity) ? spec.capabilities.capacity : {};
  const size = typeof capacity.storage === 'string' || typeof capacity.storage === 'number' ? capacity.storage : undefined;
  const fallback = typeof forProvider.allocatedStorageGi === 'number' ? forProvider.allocatedStorageGi : 20;
  forProvider.allocatedStorageGi = Math.min(RDS_MAX_STORAGE_GI, storageGiOf(size, fallback));
  return spec;
}

/** The maxmemory-policy of ElastiCache's default parameter groups. */
export const ELASTICACHE_DEFAULT_EVICTION_POLICY = 'volatile-lru';

/** elastiCacheVersionFor is the newest Redis OSS version ElastiCache offers within the claim's range, or why there is none. */
export function elastiCacheVersionFor(range: string | undefined): { version?: string; problem?: string } {
  if (range === undefined || range === '') return {};
  if (semver.validRange(range, { loose: true }) === null) return { problem: `version "${range}" is not a valid version range (want e.g. "7", ">= 6.2")` };
  const version = [...ELASTICACHE_REDIS_VERSIONS].reverse().find((v) => semver.intersects(v, range, { loose: true }));
  return version ? { version } : { problem: `ElastiCache offers Redis OSS ${ELASTICACHE_REDIS_VERSIONS.join(', ')}, none within "${range}"` };
}

/** memoryGiOf reads a claim's requirements.capacity.memory as GiB: undefined when absent, NaN when not a quantity. */
function memoryGiOf(claim: KObject): number | undefined {
  const requirements = claimSpec(claim).requirements;
  const capacity = isPlainObject(requirements) && isPlainObject(requirements.capacity) ? requirements.capacity : {};
  const memory = capacity.memory;
  if (typeof memory !== 'string' && typeof memory !== 'number') return undefined;
  try {
    return parseQuantity(String(memory)).toNumber() / 2 ** 30;
  } catch {
    return Number.NaN;
  }
}

const isNodeType = (v: unknown): v is ElastiCacheNodeType => typeof v === 'string' && (ELASTICACHE_NODE_TYPES as readonly string[]).includes(v);

/** nodeTypeFor is the node type a group gets: the template's when its memory is enough, else the smallest offered that holds `memoryGi`. */
export function nodeTypeFor(templateType: unknown, memoryGi: number | undefined): ElastiCacheNodeType | undefined {
  const base: ElastiCacheNodeType = isNodeType(templateType) ? templateType : 'cache.t4g.micro';
  if (memoryGi === undefined || ELASTICACHE_NODE_MEMORY_GIB[base] >= memoryGi) return base;
  return [...ELASTICACHE_NODE_TYPES]
    .sort((a, b) => ELASTICACHE_NODE_MEMORY_GIB[a] - ELASTICACHE_NODE_MEMORY_GIB[b])
    .find((t) => ELASTICACHE_NODE_MEMORY_GIB[t] >= memoryGi);
}

const largestNode = () => ELASTICACHE_NODE_TYPES.reduce((a, b) => (ELASTICACHE_NODE_MEMORY_GIB[b] > ELASTICACHE_NODE_MEMORY_GIB[a] ? b : a));

/**
 * matchElastiCacheReplicationGroup: the claim's version range must hold a version ElastiCache
 * offers (and the group's, when it names one); its eviction policy must be the group's
 * parameter group's (volatile-lru by default); its memory must fit a node type Conductor
 * offers (a class grows the node type to fit), or the group's own node type.
 */
export function matchElastiCacheReplicationGroup(claim: KObject, candidate: MatchCandidate<ElastiCacheReplicationGroup>): MatchResult {
  const spec = claimSpec(claim);
  const range = typeof spec.version === 'string' ? spec.version : undefined;
  const { problem } = elastiCacheVersionFor(range);
  if (problem) return doesNotFit(problem);
  const fp = candidate.type === 'class' ? forProviderOf(candidate.template.spec) : ((candidate.resource.spec.forProvider ?? {}) as JsonObject);
  const policy = typeof fp.evictionPolicy === 'string' ? fp.evictionPolicy : ELASTICACHE_DEFAULT_EVICTION_POLICY;
  if (typeof spec.evictionPolicy === 'string' && spec.evictionPolicy !== policy) {
    return doesNotFit(
      `the group's parameter group evicts by "${policy}", claim wants "${spec.evictionPolicy}" (Conductor does not create parameter groups: a class naming one that sets it, with evictionPolicy stated, fits)`,
    );
  }
  const memoryGi = memoryGiOf(claim);
  if (memoryGi !== undefined && Number.isNaN(memoryGi)) return doesNotFit('requirements.capacity.memory is not a quantity (want e.g. 2Gi)');
  if (candidate.type === 'class') {
    if (memoryGi !== undefined && nodeTypeFor(fp.nodeType, memoryGi) === undefined) {
      const largest = largestNode();
      return doesNotFit(
        `no ElastiCache node type Conductor offers holds ${String(memoryGi)} GiB (the largest, ${largest}, has ${ELASTICACHE_NODE_MEMORY_GIB[largest]} GiB)`,
      );
    }
    return fits;
  }
  const nodeType = isNodeType(fp.nodeType) ? fp.nodeType : 'cache.t4g.micro';
  if (memoryGi !== undefined && ELASTICACHE_NODE_MEMORY_GIB[nodeType] < memoryGi)
    return doesNotFit(`group's node type ${nodeType} has ${ELASTICACHE_NODE_MEMORY_GIB[nodeType]} GiB, claim asks ${String(memoryGi)} GiB`);
  const have = typeof fp.engineVersion === 'string' ? fp.engineVersion : undefined;
  if (have && range && !semver.intersects(have, range, { loose: true })) return doesNotFit(`group version ${have} is not within "${range}"`);
  return fits;
}

/** configureElastiCacheReplicationGroup: the ID from the claim, the version from its range, the node type grown to its memory. */
export function configureElastiCacheReplicationGroup(claim: KObject, template: ResourceTemplate): JsonObject {
  const c = claimSpec(claim);
  const { spec, forProvider } = configured(claim, template, 'replicationGroupId', claimAwsName('replicationGroup', ns(claim), nm(claim)));
  const { version } = elastiCacheVersionFor(typeof c.version === 'string' ? c.version : undefined);
  if (version) forProvider.engineVersion = version;
  const memoryGi = memoryGiOf(claim);
  const nodeType = nodeTypeFor(forProvider.nodeType, memoryGi !== undefined && !Number.isNaN(memoryGi) ? memoryGi : undefined);
  if (nodeType) forProvider.nodeType = nodeType;
  return spec;
}

export const s3BucketClaims: ClaimImplementation<S3Bucket>[] = [
  {
    claimKind: bucketClaimKind,
    connectionSecretKeys: s3BucketSecretKeys,
    match: matchS3Bucket,
    configure: configureS3Bucket,
    price: pricedByConfiguring(configureS3Bucket, s3BucketPrice),
    formatConnection: (details) => exactConnectionKeys('S3Bucket', s3BucketSecretKeys, details),
  },
];

export const sqsQueueClaims: ClaimImplementation<SQSQueue>[] = [
  {
    claimKind: messageQueueClaimKind,
    connectionSecretKeys: sqsQueueSecretKeys,
    match: matchSQSQueue,
    configure: configureSQSQueue,
    price: sqsQueuePrice,
    formatConnection: (details) => exactConnectionKeys('SQSQueue', sqsQueueSecretKeys, details),
  },
];

export const rdsInstanceClaims: ClaimImplementation<RDSInstance>[] = [postgresqlClaimKind, mysqlClaimKind].map((claimKind) => ({
  claimKind,
  connectionSecretKeys: rdsInstanceSecretKeys,
  match: matchRDSInstance,
  configure: configureRDSInstance,
  price: pricedByConfiguring(configureRDSInstance, rdsInstancePrice),
  formatConnection: (details: ConnectionDetails) => exactConnectionKeys('RDSInstance', rdsInstanceSecretKeys, details),
}));

export const elastiCacheReplicationGroupClaims: ClaimImplementation<ElastiCacheReplicationGroup>[] = [
  {
    claimKind: redisClaimKind,
    connectionSecretKeys: elastiCacheReplicationGroupSecretKeys,
    match: matchElastiCacheReplicationGroup,
    configure: configureElastiCacheReplicationGroup,
    price: pricedByConfiguring(configureElastiCacheReplicationGroup, elastiCacheReplicationGroupPrice),
    formatConnection: (details) => exactConnectionKeys('ElastiCacheReplicationGroup', elastiCacheReplicationGroupSecretKeys, details),
  },
];
