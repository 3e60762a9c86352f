/**
 * What a CloudSQLInstance, a MemorystoreInstance and a GCSBucket ask of their services, read
 * from the resource and its Provider, with what each service would refuse said before asking
 * it. Pure: the price hooks (claim-prices.ts) read these for every candidate the scheduler
 * prices, so nothing here may import a Google Cloud SDK — those load with the first connect
 * (the clients in cloudsql-instance.ts, memorystore-instance.ts, gcs-bucket.ts).
 */
import type { KObject } from '../../machinery/object.js';
import { EXTERNAL_NAME_ANNOTATION } from '../../apis/well-known.js';
import { sharePartsHash } from '../share-names.js';
import { GcpError } from './errors.js';
import { bucketGcpName, checkedGcpName } from './names.js';
import { GCS_STORAGE_CLASSES, type GcpRegion, type GcsStorageClass, type MemorystoreTier } from './price-table.js';
import { externalOrNamed, forProviderOf, integerOr, regionOf } from './settings.js';
import { cloudSqlTierOf } from './tiers.js';

/** A CloudSqlSettings is what a resource asks of Cloud SQL. */
export interface CloudSqlSettings {
  id: string;
  region: GcpRegion;
  engine: 'POSTGRES' | 'MYSQL';
  databaseVersion: string;
  tier: string;
  storageGb: number;
  highAvailability: boolean;
  publicIp: boolean;
  databaseName: string;
  username: string;
  owner: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** cloudSqlSettings reads a resource; a GcpError (InvalidArgument) says what Cloud SQL would refuse, before asking it. */
export function cloudSqlSettings(resource: KObject, provider: KObject | undefined): CloudSqlSettings {
  const fp = forProviderOf(resource);
  const id = externalOrNamed(resource, 'sqlInstance', 'instanceId');
  const region = regionOf(resource, provider);
  if (!region) throw new GcpError('InvalidArgument', `Cloud SQL instance ${id} has no region: set spec.forProvider.region or the Provider's spec.region`);
  const engine = fp.engine === 'MYSQL' ? 'MYSQL' : 'POSTGRES';
  const databaseVersion = str(fp.databaseVersion) ?? (engine === 'MYSQL' ? 'MYSQL_8_0' : 'POSTGRES_16');
  if (!databaseVersion.startsWith(`${engine}_`)) {
    throw new GcpError('InvalidArgument', `spec.forProvider.databaseVersion ${databaseVersion} is not a version of engine ${engine}`);
  }
  const tier = str(fp.tier) ?? 'db-custom-1-3840';
  const t = cloudSqlTierOf(tier);
  if ('problem' in t) throw new GcpError('InvalidArgument', `spec.forProvider.tier: ${t.problem}`);
  return {
    id,
    region,
    engine,
    databaseVersion,
    tier,
    storageGb: integerOr(fp.storageGb, 10, 65_536, 10),
    highAvailability: fp.highAvailability === true,
    publicIp: fp.publicIp !== false,
    databaseName: checkedGcpName('sqlName', str(fp.databaseName) ?? 'app'),
    username: checkedGcpName('sqlName', str(fp.username) ?? 'app'),
    owner: sharePartsHash([resource.metadata.namespace ?? '', resource.metadata.name ?? '']),
  };
}

/** What a resource asks of Memorystore. */
export interface MemorystoreSettings {
  id: string;
  region: GcpRegion;
  /** projects/P/locations/R/instances/I */
  name: string;
  tier: MemorystoreTier;
  memorySizeGb: number;
  redisVersion?: string;
  authEnabled: boolean;
  transitEncryption: boolean;
  evictionPolicy?: string;
  owner: string;
}

/** memorystoreSettings reads a resource; a GcpError (InvalidArgument) says what Memorystore would refuse, before asking it. */
export function memorystoreSettings(resource: KObject, provider: KObject | undefined, project: string): MemorystoreSettings {
  const fp = forProviderOf(resource);
  const id = externalOrNamed(resource, 'redisInstance', 'instanceId');
  const region = regionOf(resource, provider);
  if (!region) throw new GcpError('InvalidArgument', `Memorystore instance ${id} has no region: set spec.forProvider.region or the Provider's spec.region`);
  const tier: MemorystoreTier = fp.tier === 'STANDARD_HA' ? 'STANDARD_HA' : 'BASIC';
  const size = fp.memorySizeGb ?? 1;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 300) {
    throw new GcpError('InvalidArgument', `spec.forProvider.memorySizeGb ${JSON.stringify(size)} is not offered: Memorystore for Redis has 1 to 300 GB`);
  }
  return {
    id,
    region,
    name: `projects/${project}/locations/${region}/instances/${id}`,
    tier,
    memorySizeGb: integerOr(size, 1, 300, 1),
    ...(typeof fp.redisVersion === 'string' && fp.redisVersion !== '' ? { redisVersion: fp.redisVersion } : {}),
    authEnabled: fp.authEnabled !== false,
    transitEncryption: fp.transitEncryption === true,
    ...(typeof fp.evictionPolicy === 'string' && fp.evictionPolicy !== '' ? { evictionPolicy: fp.evictionPolicy } : {}),
    owner: sharePartsHash([resource.metadata.namespace ?? '', resource.metadata.name ?? '']),
  };
}

/** What a resource asks of Cloud Storage. */
export interface BucketSettings {
  name: string;
  region: GcpRegion;
  storageClass: GcsStorageClass;
  versioning: boolean;
  publicRead: boolean;
  forceDestroy: boolean;
  owner: string;
}

/** bucketSettings reads a resource: the name is the annotation's, else the spec's, else one derived from the project, namespace and name. */
export function bucketSettings(resource: KObject, provider: KObject | undefined, project: string): BucketSettings {
  const fp = forProviderOf(resource);
  const annotated = resource.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION];
  const given = annotated !== undefined && annotated !== '' ? annotated : typeof fp.bucketName === 'string' && fp.bucketName !== '' ? fp.bucketName : undefined;
  const name = given !== undefined ? checkedGcpName('bucket', given) : bucketGcpName(project, resource.metadata.namespace ?? '', resource.metadata.name ?? '');
  const region = regionOf(resource, provider);
  if (!region) throw new GcpError('InvalidArgument', `bucket ${name} has no region: set spec.forProvider.region or the Provider's spec.region`);
  return {
    name,
    region,
    storageClass: (GCS_STORAGE_CLASSES as readonly unknown[]).includes(fp.storageClass) ? (fp.storageClass as GcsStorageClass) : 'STANDARD',
    versioning: fp.versioning === true,
    publicRead: fp.publicRead === true,
    forceDestroy: fp.forceDestroy === true,
    owner: sharePartsHash([resource.metadata.namespace ?? '', resource.metadata.name ?? '']),
  };
}
