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
