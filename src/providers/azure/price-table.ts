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
