/**
 * The external client of a SpannerDatabase: a database in the PostgreSQL dialect, by id, in a
 * Spanner instance of the project the Provider's credentials reach. Create makes the instance
 * first when it does not exist (labelled with the resource that made it), then the database;
 * both are long-running operations, polled with backoff for a while and otherwise left to
 * the next observation (Ready=False, Creating). Every call is bounded, honours
 * CallOptions.signal and is idempotent: ALREADY_EXISTS is done, NOT_FOUND on delete is done.
 * Delete drops the database, then the instance when this resource made it and no database is
 * left in it.
 */
import { protos, type Spanner } from '@google-cloud/spanner';
import type { KObject } from '../../machinery/object.js';
import { sharePartsHash } from '../share-names.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { spannerOf } from './clients.js';
import type { GcpCredentials } from './credentials.js';
import { bounded, GcpError, gcpError, GRPC, grpcCodeOf } from './errors.js';
import type { SpannerDatabase } from './kinds.js';
import { pollWithBackoff } from './poll.js';
import { SPANNER_PRICES, type GcpRegion } from './price-table.js';
import { priceStatus, spannerMonthlyPrice } from './prices.js';
import { externalOrNamed, forProviderOf, integerOr, namedOrDefault, regionOf, sizeOf } from './settings.js';

const CALL_MS = 60_000;
/** How long create waits for an operation before leaving it to the next observation. */
const OPERATION_WAIT_MS = 60_000;
/** The label of an instance Conductor made: a hash of the namespace and name of the resource that made it. */
export const OWNER_LABEL = 'conductor-io-owner';
const POSTGRESQL = protos.google.spanner.admin.database.v1.DatabaseDialect.POSTGRESQL;

interface DatabaseSettings {
  instance: string;
  database: string;
  instanceConfig?: string;
  processingUnits: number;
  region?: GcpRegion;
  owner: string;
}

/** databaseSettings reads ids and the instance's settings off a resource. */
export function databaseSettings(resource: KObject, provider: KObject | undefined): DatabaseSettings {
  const fp = forProviderOf(resource);
  const region = regionOf(resource, provider);
  const config = typeof fp.instanceConfig === 'string' && fp.instanceConfig !== '' ? fp.instanceConfig : region ? `regional-${region}` : undefined;
  return {
    instance: namedOrDefault(resource, 'instance', 'instanceId'),
    database: externalOrNamed(resource, 'database', 'databaseId'),
    ...(config ? { instanceConfig: config } : {}),
    processingUnits: integerOr(fp.processingUnits, 100, 100000, 100),
    ...(region ? { region } : {}),
    owner: sharePartsHash([resource.metadata.namespace ?? '', resource.metadata.name ?? '']),
  };
}

/** A SpannerDatabaseClient is the ExternalClient of SpannerDatabases of one project. */
export class SpannerDatabaseClient implements ExternalClient<SpannerDatabase> {
  private readonly spanner: Spanner;

  constructor(
    private readonly credentials: GcpCredentials,
    private readonly provider: KObject | undefined,
  ) {
    this.spanner = spannerOf(credentials);
  }

  /** connectionDetails are a claim's keys: where the database is, and the application key if any. */
  connectionDetails(s: DatabaseSettings): ConnectionDetails {
    const e = this.credentials.spanner;
    const host = e.host.includes(':') ? `[${e.host}]` : e.host;
    const path = `projects/${this.credentials.projectId}/instances/${s.instance}/databases/${s.database}`;
    return {
      host: e.host,
      port: String(e.port),
      username: this.credentials.applicationEmail ?? '',
      password: '',
      database: s.database,
      uri: `cloudspanner://${host}:${e.port}/${path}${e.emulator ? '?autoConfigEmulator=true' : ''}`,
      projectId: this.credentials.projectId,
      instanceId: s.instance,
      databaseId: s.database,
      emulated: String(e.emulator),
      credentials: this.credentials.applicationCredentials ?? '',
    };
  }

  private async databaseState(s: DatabaseSettings, signal?: AbortSignal): Promise<{ state: string; dialect: string } | undefined> {
    try {
      const [metadata] = await bounded(this.spanner.instance(s.instance).database(s.database).getMetadata(), CALL_MS, signal);
      return { state: String(metadata.state ?? ''), dialect: String(metadata.databaseDialect ?? '') };
    } catch (err) {
      if (grpcCodeOf(err) === GRPC.NOT_FOUND) return undefined;
      throw gcpError(err, `read database ${s.database} of instance ${s.instance}`);
    }
  }

  private async instanceMetadata(s: DatabaseSettings, signal?: AbortSignal) {
    try {
      const [metadata] = await bounded(this.spanner.instance(s.instance).getMetadata(), CALL_MS, signal);
      return metadata;
    } catch (err) {
      if (grpcCodeOf(err) === GRPC.NOT_FOUND) return undefined;
      throw gcpError(err, `read instance ${s.instance}`);
    }
  }

  async observe(resource: SpannerDatabase, options: CallOptions = {}): Promise<ExternalObservation> {
    const s = databaseSettings(resource, this.provider);
    const db = await this.databaseState(s, options.signal);
    if (!db) return { exists: false, upToDate: false };
    const atProvider = {
      database: `projects/${this.credentials.projectId}/instances/${s.instance}/databases/${s.database}`,
      instanceId: s.instance,
      state: db.state,
      ...(s.region ? { region: s.region } : {}),
      processingUnits: s.processingUnits,
      ...priceStatus(spannerMonthlyPrice(SPANNER_PRICES, s.region, s.processingUnits, sizeOf(resource))),
    };
    const connectionDetails = this.connectionDetails(s);
    if (db.dialect === 'GOOGLE_STANDARD_SQL') {
      return {
        exists: true,
        upToDate: true,
        atProvider,
        connectionDetails,
        notReady: { reason: 'WrongDialect', message: `database ${s.database} is in the GoogleSQL dialect: a PostgreSQLInstance needs the PostgreSQL dialect` },
      };
    }
    if (db.state === 'CREATING') {
      return {
        exists: true,
        upToDate: true,
        atProvider,
        connectionDetails,
        notReady: { reason: 'Creating', message: `Spanner is still creating database ${s.database}` },
      };
    }
    return { exists: true, upToDate: true, atProvider, connectionDetails };
  }

  private async ensureInstance(s: DatabaseSettings, signal?: AbortSignal): Promise<void> {
    const existing = await this.instanceMetadata(s, signal);
    if (!existing) {
      if (!s.instanceConfig) {
        throw new GcpError(
          'InvalidArgument',
          `instance ${s.instance} does not exist and no instance configuration is known: set spec.forProvider.instanceConfig or region`,
        );
      }
      try {
        await bounded(
          this.spanner.createInstance(s.instance, {
            config: s.instanceConfig,
            processingUnits: s.processingUnits,
            displayName: s.instance.slice(0, 30),
            labels: { [OWNER_LABEL]: s.owner },
          }),
          CALL_MS,
          signal,
        );
      } catch (err) {
        if (grpcCodeOf(err) !== GRPC.ALREADY_EXISTS)
          throw gcpError(err, `create instance ${s.instance} (${s.instanceConfig}, ${s.processingUnits} processing units)`);
      }
    }
    const ready = await pollWithBackoff(
      async () => {
        const m = await this.instanceMetadata(s, signal);
        return m && String(m.state) === 'READY' ? true : undefined;
      },
      OPERATION_WAIT_MS,
      signal,
    );
    if (!ready) throw new GcpError('RequestFailed', `Spanner is still creating instance ${s.instance}; looked at again later`);
  }

  async create(resource: SpannerDatabase, options: CallOptions = {}): Promise<ExternalCreation> {
    const s = databaseSettings(resource, this.provider);
    await this.ensureInstance(s, options.signal);
    try {
      await bounded(this.spanner.instance(s.instance).createDatabase(s.database, { databaseDialect: POSTGRESQL }), CALL_MS, options.signal);
    } catch (err) {
      if (grpcCodeOf(err) !== GRPC.ALREADY_EXISTS) throw gcpError(err, `create database ${s.database} in instance ${s.instance}`);
    }
    await pollWithBackoff(
      async () => {
        const db = await this.databaseState(s, options.signal);
        return db && db.state !== 'CREATING' ? true : undefined;
      },
      OPERATION_WAIT_MS,
      options.signal,
    );
    return { externalName: s.database, connectionDetails: this.connectionDetails(s) };
  }

  async update(resource: SpannerDatabase): Promise<ExternalUpdate> {
    // Nothing of the database's spec is kept in Spanner but its id; an existing instance is left as it is.
    return { connectionDetails: this.connectionDetails(databaseSettings(resource, this.provider)) };
  }

  async delete(resource: SpannerDatabase, options: CallOptions = {}): Promise<void> {
    const s = databaseSettings(resource, this.provider);
    const instance = this.spanner.instance(s.instance);
    try {
      await bounded(instance.database(s.database).delete(), CALL_MS, options.signal);
    } catch (err) {
      if (grpcCodeOf(err) !== GRPC.NOT_FOUND) throw gcpError(err, `drop database ${s.database} of instance ${s.instance}`);
    }
    const metadata = await this.instanceMetadata(s, options.signal);
    if (!metadata || metadata.labels?.[OWNER_LABEL] !== s.owner) return;
    let left: number;
    try {
      const [databases] = await bounded(instance.getDatabases({ pageSize: 1, gaxOptions: { autoPaginate: false } }), CALL_MS, options.signal);
      left = databases.length;
    } catch (err) {
      throw gcpError(err, `list the databases of instance ${s.instance}`);
    }
    if (left > 0) return;
    try {
      await bounded(instance.delete(), CALL_MS, options.signal);
    } catch (err) {
      if (grpcCodeOf(err) !== GRPC.NOT_FOUND) throw gcpError(err, `delete instance ${s.instance}`);
    }
  }

  async close(): Promise<void> {
    await this.spanner.close().catch(() => undefined);
  }
}
