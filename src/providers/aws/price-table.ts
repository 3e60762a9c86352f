/**
 * The data behind the aws kinds' region and price capabilities: AWS's commercial regions and
 * monthly list prices. Data only — edit the numbers here when AWS's prices change, and move
 * `asOf` with them. Prices are on-demand list prices in USD; requests, transfer, backups and
 * I/O are not priced. A region missing from a table has no price (the resource says so); it is
 * still a valid region.
 */

/** AWS's commercial regions (the `aws` partition; GovCloud and China are other partitions, not supported). */
export const AWS_REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'af-south-1',
  'ap-east-1',
  'ap-south-1',
  'ap-south-2',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-southeast-3',
  'ap-southeast-4',
  'ap-southeast-5',
  'ap-southeast-7',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'ca-central-1',
  'ca-west-1',
  'eu-central-1',
  'eu-central-2',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'eu-south-1',
  'eu-south-2',
  'eu-north-1',
  'il-central-1',
  'me-south-1',
  'me-central-1',
  'mx-central-1',
  'sa-east-1',
] as const;
export type AwsRegion = (typeof AWS_REGIONS)[number];

/** isAwsRegion tells whether `v` is one of AWS_REGIONS. */
export const isAwsRegion = (v: unknown): v is AwsRegion => typeof v === 'string' && (AWS_REGIONS as readonly string[]).includes(v);

/** Where a table's numbers came from, and whether they were checked. */
export interface PriceSource {
  /** The day the prices were read. */
  readonly asOf: string;
  readonly currency: 'USD';
  /** Where the prices were read (and where to check them again). */
  readonly source: string;
  /** Whether the numbers were checked against the source on `asOf`; false: secondary sources, verify before relying on them. */
  readonly verified: boolean;
}

/** S3 Standard storage, USD per GB-month (first 50 TB/month). */
export const S3_STANDARD_PRICES: PriceSource & { readonly perGbMonth: Readonly<Partial<Record<AwsRegion, number>>> } = {
  asOf: '2024-06-01',
  currency: 'USD',
  source: 'https://aws.amazon.com/s3/pricing/ (S3 Standard, first 50 TB/month), as quoted by secondary sources',
  verified: false,
  perGbMonth: {
    'us-east-1': 0.023,
    'us-east-2': 0.023,
    'us-west-2': 0.023,
    'eu-west-1': 0.023,
    'eu-central-1': 0.0245,
  },
};

/** The RDS instance classes Conductor offers (Graviton, general purpose and burstable). */
export const RDS_INSTANCE_CLASSES = [
  'db.t4g.micro',
  'db.t4g.small',
  'db.t4g.medium',
  'db.t4g.large',
  'db.m6g.large',
  'db.m6g.xlarge',
  'db.m6g.2xlarge',
  'db.r6g.large',
  'db.r6g.xlarge',
] as const;
export type RdsInstanceClass = (typeof RDS_INSTANCE_CLASSES)[number];

/** The RDS engines Conductor creates. */
export const RDS_ENGINES = ['postgres', 'mysql'] as const;
export type RdsEngine = (typeof RDS_ENGINES)[number];

/** The storage types RDS offers for these engines. */
export const RDS_STORAGE_TYPES = ['gp3', 'gp2'] as const;
export type RdsStorageType = (typeof RDS_STORAGE_TYPES)[number];

/**
 * RDS for PostgreSQL and MySQL, Single-AZ on-demand: USD per instance-hour by engine, region
 * and class, and USD per GB-month of storage by region and type. Multi-AZ doubles both.
 */
export const RDS_PRICES: PriceSource & {
  readonly perHour: Readonly<Record<RdsEngine, Readonly<Partial<Record<AwsRegion, Readonly<Partial<Record<RdsInstanceClass, number>>>>>>>>;
  readonly storagePerGbMonth: Readonly<Partial<Record<AwsRegion, Readonly<Partial<Record<RdsStorageType, number>>>>>>;
} = {
  asOf: '2024-06-01',
  currency: 'USD',
  source: 'https://aws.amazon.com/rds/postgresql/pricing/ and https://aws.amazon.com/rds/mysql/pricing/ (Single-AZ, on-demand), as quoted by secondary sources',
  verified: false,
  perHour: {
    postgres: {
      'us-east-1': {
        'db.t4g.micro': 0.016,
        'db.t4g.small': 0.032,
        'db.t4g.medium': 0.065,
        'db.t4g.large': 0.129,
        'db.m6g.large': 0.159,
        'db.m6g.xlarge': 0.318,
        'db.m6g.2xlarge': 0.636,
        'db.r6g.large': 0.225,
        'db.r6g.xlarge': 0.45,
      },
    },
    mysql: {
      'us-east-1': {
        'db.t4g.micro': 0.016,
        'db.t4g.small': 0.032,
        'db.t4g.medium': 0.065,
        'db.t4g.large': 0.129,
        'db.m6g.large': 0.152,
        'db.m6g.xlarge': 0.304,
        'db.m6g.2xlarge': 0.608,
        'db.r6g.large': 0.215,
        'db.r6g.xlarge': 0.43,
      },
    },
  },
  storagePerGbMonth: {
    'us-east-1': { gp3: 0.115, gp2: 0.115 },
  },
};

/** SQS has no storage price: it is priced per request. */
export const SQS_PRICE_NOTE =
  'SQS is priced per request (https://aws.amazon.com/sqs/pricing/: the first million requests a month free, then about 0.40 USD per million for standard and 0.50 for FIFO queues, unverified), not by size';

/** The ElastiCache node types Conductor offers for Redis OSS replication groups (Graviton, burstable and general purpose / memory optimized). */
export const ELASTICACHE_NODE_TYPES = [
  'cache.t4g.micro',
  'cache.t4g.small',
  'cache.t4g.medium',
  'cache.m7g.large',
  'cache.m7g.xlarge',
  'cache.r7g.large',
  'cache.r7g.xlarge',
] as const;
export type ElastiCacheNodeType = (typeof ELASTICACHE_NODE_TYPES)[number];

/**
 * The memory of each node type in GiB, as ElastiCache's node-type table states it (what a
 * RedisCluster claim's `requirements.capacity.memory` is matched against), smallest first.
 */
export const ELASTICACHE_NODE_MEMORY_GIB: Readonly<Record<ElastiCacheNodeType, number>> = {
  'cache.t4g.micro': 0.5,
  'cache.t4g.small': 1.37,
  'cache.t4g.medium': 3.09,
  'cache.m7g.large': 6.38,
  'cache.m7g.xlarge': 12.93,
  'cache.r7g.large': 13.07,
  'cache.r7g.xlarge': 26.32,
};

/** The Redis OSS versions ElastiCache offers for new replication groups (what a claim's version range is matched against). */
export const ELASTICACHE_REDIS_VERSIONS = ['6.2', '7.0', '7.1'] as const;

/** ElastiCache for Redis OSS, on-demand nodes: USD per node-hour by region and node type (a group of n nodes costs n times). */
export const ELASTICACHE_PRICES: PriceSource & {
  readonly perNodeHour: Readonly<Partial<Record<AwsRegion, Readonly<Partial<Record<ElastiCacheNodeType, number>>>>>>;
} = {
  asOf: '2024-06-01',
  currency: 'USD',
  source: 'https://aws.amazon.com/elasticache/pricing/ (Redis OSS, on-demand nodes), as quoted by secondary sources',
  verified: false,
  perNodeHour: {
    'us-east-1': {
      'cache.t4g.micro': 0.016,
      'cache.t4g.small': 0.032,
      'cache.t4g.medium': 0.065,
      'cache.m7g.large': 0.158,
      'cache.m7g.xlarge': 0.315,
      'cache.r7g.large': 0.219,
      'cache.r7g.xlarge': 0.437,
    },
  },
};
