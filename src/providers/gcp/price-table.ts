/**
 * The data behind the gcp kinds' region and price capabilities: Google Cloud's public regions
 * and monthly list prices. Data only — edit the numbers here when Google's prices change, and
 * move `asOf` with them. A region missing from a table has no price (the resource says so); it
 * is still a valid region.
 */

/** Google Cloud's public regions (`gcloud compute regions list`). */
export const GCP_REGIONS = [
  'africa-south1',
  'asia-east1',
  'asia-east2',
  'asia-northeast1',
  'asia-northeast2',
  'asia-northeast3',
  'asia-south1',
  'asia-south2',
  'asia-southeast1',
  'asia-southeast2',
  'australia-southeast1',
  'australia-southeast2',
  'europe-central2',
  'europe-north1',
  'europe-southwest1',
  'europe-west1',
  'europe-west2',
  'europe-west3',
  'europe-west4',
  'europe-west6',
  'europe-west8',
  'europe-west9',
  'europe-west10',
  'europe-west12',
  'me-central1',
  'me-central2',
  'me-west1',
  'northamerica-northeast1',
  'northamerica-northeast2',
  'southamerica-east1',
  'southamerica-west1',
  'us-central1',
  'us-east1',
  'us-east4',
  'us-east5',
  'us-south1',
  'us-west1',
  'us-west2',
  'us-west3',
  'us-west4',
] as const;
export type GcpRegion = (typeof GCP_REGIONS)[number];

/** isGcpRegion tells a Google Cloud region name. */
export const isGcpRegion = (v: unknown): v is GcpRegion => typeof v === 'string' && (GCP_REGIONS as readonly string[]).includes(v);

/** A table's date, source and whether the numbers were checked against the source. */
export interface PriceSource {
  /** The day the prices were read. */
  readonly asOf: string;
  readonly currency: 'USD';
  /** Where the prices were read (and where to check them again). */
  readonly source: string;
  /** Whether the numbers were checked against the source on `asOf`; false: secondary sources, verify before relying on them. */
  readonly verified: boolean;
}

/**
 * Pub/Sub: stored messages (retained acknowledged messages and unacknowledged backlog beyond
 * the free week are billed as storage), per GiB-month. Pub/Sub is a global service with one
 * price; throughput ($ per TiB published and delivered) is not priced here: it depends on traffic.
 */
export interface PubSubPriceTable extends PriceSource {
  readonly storagePerGibMonth: number;
}

export const PUBSUB_PRICES: PubSubPriceTable = {
  asOf: '2024-06-30',
  currency: 'USD',
  source: 'https://cloud.google.com/pubsub/pricing (message storage), as quoted by secondary sources',
  verified: false,
  storagePerGibMonth: 0.27,
};

/**
 * Spanner, Standard edition, regional instance configurations: compute per node-hour (1000
 * processing units; smaller instances pay in proportion) and storage per GB-month, by region.
 * A month is 730 hours.
 */
export interface SpannerPriceTable extends PriceSource {
  readonly regional: Readonly<Partial<Record<GcpRegion, { readonly perNodeHour: number; readonly storagePerGbMonth: number }>>>;
}

export const SPANNER_PRICES: SpannerPriceTable = {
  asOf: '2024-06-30',
  currency: 'USD',
  source: 'https://cloud.google.com/spanner/pricing (regional configurations, compute and storage), as quoted by secondary sources',
  verified: false,
  regional: {
    'us-central1': { perNodeHour: 0.9, storagePerGbMonth: 0.3 },
    'us-east1': { perNodeHour: 0.9, storagePerGbMonth: 0.3 },
    'europe-west1': { perNodeHour: 0.99, storagePerGbMonth: 0.33 },
  },
};

/** Hours in a billing month, as Google's calculator counts them. */
export const HOURS_PER_MONTH = 730;

/**
 * Cloud SQL (Enterprise edition), by region: dedicated-core instances pay per vCPU-hour and per
 * GB of memory-hour, shared-core tiers a flat hourly rate; SSD storage per GB-month. High
 * availability (REGIONAL) doubles compute and storage.
 */
export interface CloudSqlPriceTable extends PriceSource {
  readonly regional: Readonly<
    Partial<
      Record<
        GcpRegion,
        {
          readonly perVcpuHour: number;
          readonly perGbMemoryHour: number;
          readonly ssdPerGbMonth: number;
          readonly sharedCore: Readonly<Record<'db-f1-micro' | 'db-g1-small', number>>;
        }
      >
    >
  >;
}

export const CLOUD_SQL_PRICES: CloudSqlPriceTable = {
  asOf: '2025-01-15',
  currency: 'USD',
  source: 'https://cloud.google.com/sql/pricing (Enterprise edition, per vCPU, memory and SSD storage), as quoted by secondary sources',
  verified: false,
  regional: {
    'us-central1': { perVcpuHour: 0.0413, perGbMemoryHour: 0.007, ssdPerGbMonth: 0.17, sharedCore: { 'db-f1-micro': 0.0105, 'db-g1-small': 0.035 } },
    'us-east1': { perVcpuHour: 0.0413, perGbMemoryHour: 0.007, ssdPerGbMonth: 0.17, sharedCore: { 'db-f1-micro': 0.0105, 'db-g1-small': 0.035 } },
    'europe-west1': { perVcpuHour: 0.0454, perGbMemoryHour: 0.0077, ssdPerGbMonth: 0.187, sharedCore: { 'db-f1-micro': 0.0115, 'db-g1-small': 0.0385 } },
  },
};

/** Memorystore for Redis service tiers. */
export const MEMORYSTORE_TIERS = ['BASIC', 'STANDARD_HA'] as const;
export type MemorystoreTier = (typeof MEMORYSTORE_TIERS)[number];

/**
 * Memorystore for Redis, by region and tier: per GB of provisioned capacity per hour, in
 * capacity bands (M1 1–4 GB, M2 5–10, M3 11–35, M4 36–100, M5 above 100).
 */
export interface MemorystorePriceTable extends PriceSource {
  /** The lowest GB of each band, ascending. */
  readonly bandsFromGb: readonly number[];
  readonly regional: Readonly<Partial<Record<GcpRegion, Readonly<Record<MemorystoreTier, readonly number[]>>>>>;
}

export const MEMORYSTORE_PRICES: MemorystorePriceTable = {
  asOf: '2025-01-15',
  currency: 'USD',
  source: 'https://cloud.google.com/memorystore/docs/redis/pricing (per GB-hour by tier and capacity band), as quoted by secondary sources',
  verified: false,
  bandsFromGb: [1, 5, 11, 36, 101],
  regional: {
    'us-central1': { BASIC: [0.049, 0.027, 0.023, 0.019, 0.016], STANDARD_HA: [0.064, 0.054, 0.046, 0.038, 0.032] },
    'us-east1': { BASIC: [0.049, 0.027, 0.023, 0.019, 0.016], STANDARD_HA: [0.064, 0.054, 0.046, 0.038, 0.032] },
    'europe-west1': { BASIC: [0.054, 0.03, 0.025, 0.021, 0.018], STANDARD_HA: [0.07, 0.059, 0.051, 0.042, 0.035] },
  },
};

/** Cloud Storage classes Conductor creates buckets in. */
export const GCS_STORAGE_CLASSES = ['STANDARD', 'NEARLINE', 'COLDLINE', 'ARCHIVE'] as const;
export type GcsStorageClass = (typeof GCS_STORAGE_CLASSES)[number];

/** Cloud Storage at rest, regional buckets, per GB-month by region and storage class (operations and egress not priced). */
export interface GcsPriceTable extends PriceSource {
  readonly regional: Readonly<Partial<Record<GcpRegion, Readonly<Record<GcsStorageClass, number>>>>>;
}

export const GCS_PRICES: GcsPriceTable = {
  asOf: '2025-01-15',
  currency: 'USD',
  source: 'https://cloud.google.com/storage/pricing (regional data storage), as quoted by secondary sources',
  verified: false,
  regional: {
    'us-central1': { STANDARD: 0.02, NEARLINE: 0.01, COLDLINE: 0.004, ARCHIVE: 0.0012 },
    'us-east1': { STANDARD: 0.02, NEARLINE: 0.01, COLDLINE: 0.004, ARCHIVE: 0.0012 },
    'europe-west1': { STANDARD: 0.02, NEARLINE: 0.01, COLDLINE: 0.004, ARCHIVE: 0.0012 },
  },
};
