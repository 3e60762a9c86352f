/**
 * The data behind the azure kinds' region and price capabilities: Azure's public regions (the
 * locations a storage account can be in) and monthly storage prices. Data only — edit the
 * numbers here when Azure's prices change, and move `asOf` with them.
 *
 * Prices are list prices in USD per GB-month of stored data for a general-purpose v2 account,
 * pay-as-you-go, first 50 TB: blob data in the Hot tier, and queue data. Operations,
 * transfers and geo-replication traffic are not priced. A region missing from a table has no
 * price (the resource says so); it is still a valid location.
 */

/** Azure's public regions by their programmatic names (`az account list-locations`). */
export const AZURE_LOCATIONS = [
  'australiacentral',
  'australiaeast',
  'australiasoutheast',
  'brazilsouth',
  'canadacentral',
  'canadaeast',
  'centralindia',
  'centralus',
  'eastasia',
  'eastus',
  'eastus2',
  'francecentral',
  'germanywestcentral',
  'israelcentral',
  'italynorth',
  'japaneast',
  'japanwest',
  'koreacentral',
  'koreasouth',
  'mexicocentral',
  'newzealandnorth',
  'northcentralus',
  'northeurope',
  'norwayeast',
  'polandcentral',
  'qatarcentral',
  'southafricanorth',
  'southcentralus',
  'southeastasia',
  'southindia',
  'spaincentral',
  'swedencentral',
  'switzerlandnorth',
  'uaenorth',
  'uksouth',
  'ukwest',
  'westcentralus',
  'westeurope',
  'westindia',
  'westus',
  'westus2',
  'westus3',
] as const;
export type AzureLocation = (typeof AZURE_LOCATIONS)[number];

/** The redundancy of the storage account (its SKU's suffix): what the price depends on besides the region. */
export const AZURE_REDUNDANCIES = ['LRS', 'ZRS', 'GRS', 'RAGRS'] as const;
export type AzureRedundancy = (typeof AZURE_REDUNDANCIES)[number];

/** A PriceTable is the monthly price of a GB per region and redundancy, with where it came from. */
export interface PriceTable {
  /** The day the prices were read. */
  readonly asOf: string;
  readonly currency: 'USD';
  /** Where the prices were read (and where to check them again). */
  readonly source: string;
  /** Whether the numbers were checked against the source on `asOf`; false: secondary sources, verify before relying on them. */
  readonly verified: boolean;
  readonly perGbMonth: Readonly<Partial<Record<AzureLocation, Readonly<Partial<Record<AzureRedundancy, number>>>>>>;
}

/** Blob storage, Hot tier. */
export const BLOB_HOT_PRICES: PriceTable = {
  asOf: '2023-09-30',
  currency: 'USD',
  source: 'https://azure.microsoft.com/pricing/details/storage/blobs/ (general purpose v2, Hot, first 50 TB/month), as quoted for Q3 2023 by secondary sources',
  verified: false,
  perGbMonth: {
    eastus: { LRS: 0.0184, GRS: 0.0368 },
  },
};

/** Queue storage. */
export const QUEUE_PRICES: PriceTable = {
  asOf: '2023-09-30',
  currency: 'USD',
  source: 'https://azure.microsoft.com/pricing/details/storage/queues/ (general purpose v2, capacity), as quoted by secondary sources',
  verified: false,
  perGbMonth: {
    eastus: { LRS: 0.045 },
  },
};

/*
 * The database and cache kinds (below): the data behind their sizes and prices: the flexible server SKUs
 * and versions Conductor offers, the Redis SKUs, and their monthly list prices. Data only —
 * edit the numbers here when Azure's prices change, and move `asOf` with them.
 *
 * Prices are pay-as-you-go list prices in USD, Linux, no reservation: compute per hour (a
 * month is 730 hours) and storage per GB-month. Backups beyond the free amount, IOPS above
 * the included, high availability and data transfer are not priced. A region missing from a
 * table has no price (the resource says so); it is still a valid location.
 *
 * **The shipped numbers are eastus only, from secondary sources, and marked `verified:
 * false`**: check them against the source URL before relying on them.
 */

/** The flexible server compute sizes Conductor offers (Azure offers more: add them here and in the prices). */
export const FLEXIBLE_SERVER_SKUS = ['Standard_B1ms', 'Standard_B2s', 'Standard_D2ds_v5', 'Standard_D4ds_v5', 'Standard_E2ds_v5'] as const;
export type FlexibleServerSku = (typeof FLEXIBLE_SERVER_SKUS)[number];

/** The tier of a SKU, as ARM wants it beside the name. */
export function skuTier(sku: string): 'Burstable' | 'GeneralPurpose' | 'MemoryOptimized' {
  return sku.startsWith('Standard_B') ? 'Burstable' : sku.startsWith('Standard_E') ? 'MemoryOptimized' : 'GeneralPurpose';
}

export const POSTGRES_VERSIONS = ['13', '14', '15', '16', '17'] as const;
export const MYSQL_VERSIONS = ['5.7', '8.0.21'] as const;

/** The storage sizes a PostgreSQL flexible server offers, in GB (a request is rounded up to one). */
export const POSTGRES_STORAGE_SIZES_GB = [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384] as const;

export const REDIS_SKUS = ['Basic', 'Standard', 'Premium'] as const;
export type RedisSku = (typeof REDIS_SKUS)[number];

/** An ArmPriceTable is the hourly price of each size and the GB-month price of storage, per region, with where it came from. */
export interface ArmPriceTable {
  readonly asOf: string;
  readonly currency: 'USD';
  readonly source: string;
  readonly verified: boolean;
  /** USD per hour by region and size (a flexible server SKU, or a Redis size such as C1 or P2). */
  readonly perHour: Readonly<Partial<Record<AzureLocation, Readonly<Record<string, number>>>>>;
  /** USD per GB-month of storage by region (flexible servers). */
  readonly storagePerGbMonth?: Readonly<Partial<Record<AzureLocation, number>>>;
}

export const POSTGRES_FLEXIBLE_PRICES: ArmPriceTable = {
  asOf: '2024-06-01',
  currency: 'USD',
  source: 'https://azure.microsoft.com/pricing/details/postgresql/flexible-server/ (pay as you go), as quoted by secondary sources',
  verified: false,
  perHour: {
    eastus: { Standard_B1ms: 0.017, Standard_B2s: 0.068, Standard_D2ds_v5: 0.178, Standard_D4ds_v5: 0.356, Standard_E2ds_v5: 0.248 },
  },
  storagePerGbMonth: { eastus: 0.115 },
};

export const MYSQL_FLEXIBLE_PRICES: ArmPriceTable = {
  asOf: '2024-06-01',
  currency: 'USD',
  source: 'https://azure.microsoft.com/pricing/details/mysql/flexible-server/ (pay as you go), as quoted by secondary sources',
  verified: false,
  perHour: {
    eastus: { Standard_B1ms: 0.0207, Standard_B2s: 0.0827, Standard_D2ds_v5: 0.171, Standard_D4ds_v5: 0.342, Standard_E2ds_v5: 0.247 },
  },
  storagePerGbMonth: { eastus: 0.115 },
};

export const REDIS_PRICES: ArmPriceTable = {
  asOf: '2024-06-01',
  currency: 'USD',
  source: 'https://azure.microsoft.com/pricing/details/cache/ (Basic, Standard, Premium; pay as you go), as quoted by secondary sources',
  verified: false,
  perHour: {
    eastus: {
      'Basic C0': 0.022,
      'Basic C1': 0.055,
      'Basic C2': 0.089,
      'Standard C0': 0.055,
      'Standard C1': 0.138,
      'Standard C2': 0.221,
      'Premium P1': 0.554,
      'Premium P2': 1.108,
    },
  },
};
