/**
 * The external client of PostgreSQLFlexibleServer and MySQLFlexibleServer: a flexible server,
 * by name, in the subscription and resource group of the Provider's service principal, with
 * one database for the claim. ARM works in long-running operations (operations.ts), so:
 * - observe is GET of the server: none, while a create this process sent is under way, is
 *   "Creating" (the operation is polled once per observe); a server not `Ready` is reported
 *   not ready with its state as the reason (Updating, Dropping, Starting, Stopped, …); a Ready
 *   one without its database has drift, which update corrects;
 * - create GETs first: a server made for this resource (tag `conductor.io/resource`) is done,
 *   one made for anything else is refused (import it with conductor.io/external-name) — ARM's
 *   PUT would overwrite it. Then PUT with a generated administrator password (admin-password.ts);
 * - update PATCHes the SKU and storage (storage only grows) and PUTs the database;
 * - delete is DELETE (gone or already dropping is fine).
 * Throttling, quota and invalid parameters surface as errors naming them (arm-errors.ts).
 */
import { isPlainObject, type KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { uriHost } from '../uri-host.js';
import { adminPassword } from './admin-password.js';
import type { ArmClients } from './arm-clients.js';
import { ArmError, armError, isResourceNotFound } from './arm-errors.js';
import type { ArmAccess } from './credentials.js';
import type { MySQLFlexibleServer, PostgreSQLFlexibleServer } from './kinds.js';
import { pollOnce, type AnyPoller, type Operations } from './operations.js';
import { MYSQL_FLEXIBLE_PRICES, POSTGRES_FLEXIBLE_PRICES, POSTGRES_STORAGE_SIZES_GB, skuTier, type ArmPriceTable } from './price-table.js';
import { hourlyMonthlyPrice } from './prices.js';
import { armResourceSettings, RESOURCE_TAG, priceStatusOf } from './arm-settings.js';

/** What Conductor reads of a server, whichever SDK read it. */
export interface ServerView {
  state?: string;
  fullyQualifiedDomainName?: string;
  skuName?: string;
  storageSizeGB?: number;
  version?: string;
  administratorLogin?: string;
  tags?: Record<string, string>;
  location?: string;
}

/** What a server is created with. */
export interface ServerParameters {
  location: string;
  skuName: string;
  version: string;
  storageSizeGB: number;
  administratorLogin: string;
  administratorLoginPassword: string;
  tags: Record<string, string>;
}

/** A FlexibleEngine is one service's SDK calls, in Conductor's terms. */
export interface FlexibleEngine {
  engine: 'postgres' | 'mysql';
  label: string;
  scheme: 'postgresql' | 'mysql';
  port: number;
  prices: ArmPriceTable;
  /** The storage size Azure gives for a request (PostgreSQL: the next offered size). */
  storageFor: (gb: number) => number;
  getServer(rg: string, name: string, signal?: AbortSignal): Promise<ServerView>;
  createServer(rg: string, name: string, p: ServerParameters, signal?: AbortSignal): Promise<AnyPoller>;
  updateServer(rg: string, name: string, p: { skuName: string; storageSizeGB: number }, signal?: AbortSignal): Promise<AnyPoller>;
  deleteServer(rg: string, name: string, signal?: AbortSignal): Promise<AnyPoller>;
  getDatabase(rg: string, server: string, db: string, signal?: AbortSignal): Promise<unknown>;
  createDatabase(rg: string, server: string, db: string, signal?: AbortSignal): Promise<AnyPoller>;
}

const view = (s: {
  state?: string;
  fullyQualifiedDomainName?: string;
  sku?: { name?: string };
  storage?: { storageSizeGB?: number };
  version?: string;
  administratorLogin?: string;
  tags?: Record<string, string>;
  location?: string;
}): ServerView => ({
  ...(s.state !== undefined ? { state: s.state } : {}),
  ...(s.fullyQualifiedDomainName !== undefined ? { fullyQualifiedDomainName: s.fullyQualifiedDomainName } : {}),
  ...(s.sku?.name !== undefined ? { skuName: s.sku.name } : {}),
  ...(s.storage?.storageSizeGB !== undefined ? { storageSizeGB: s.storage.storageSizeGB } : {}),
  ...(s.version !== undefined ? { version: s.version } : {}),
  ...(s.administratorLogin !== undefined ? { administratorLogin: s.administratorLogin } : {}),
  ...(s.tags !== undefined ? { tags: s.tags } : {}),
  ...(s.location !== undefined ? { location: s.location } : {}),
});

/** postgresEngine is PostgreSQL flexible server through @azure/arm-postgresql-flexible. */
export function postgresEngine(clients: ArmClients): FlexibleEngine {
  const c = clients.postgres;
  return {
    engine: 'postgres',
    label: 'PostgreSQL flexible server',
    scheme: 'postgresql',
    port: 5432,
    prices: POSTGRES_FLEXIBLE_PRICES,
    storageFor: postgresStorageFor,
    getServer: async (rg, name, signal) => view(await c.servers.get(rg, name, { abortSignal: signal })),
    createServer: (rg, name, p, signal) =>
      c.servers.beginCreateOrUpdate(
        rg,
        name,
        {
          location: p.location,
          sku: { name: p.skuName, tier: skuTier(p.skuName) },
          version: p.version,
          storage: { storageSizeGB: p.storageSizeGB },
          administratorLogin: p.administratorLogin,
          administratorLoginPassword: p.administratorLoginPassword,
          createMode: 'Create',
          tags: p.tags,
        },
        { abortSignal: signal },
      ),
    updateServer: (rg, name, p, signal) =>
      c.servers.beginUpdate(
        rg,
        name,
        { sku: { name: p.skuName, tier: skuTier(p.skuName) }, storage: { storageSizeGB: p.storageSizeGB } },
        { abortSignal: signal },
      ),
    deleteServer: (rg, name, signal) => c.servers.beginDelete(rg, name, { abortSignal: signal }),
    getDatabase: (rg, server, db, signal) => c.databases.get(rg, server, db, { abortSignal: signal }),
    createDatabase: (rg, server, db, signal) => c.databases.beginCreate(rg, server, db, { charset: 'UTF8', collation: 'en_US.utf8' }, { abortSignal: signal }),
  };
}

/** mysqlEngine is MySQL flexible server through @azure/arm-mysql-flexible. */
export function mysqlEngine(clients: ArmClients): FlexibleEngine {
  const c = clients.mysql;
  return {
    engine: 'mysql',
    label: 'MySQL flexible server',
    scheme: 'mysql',
    port: 3306,
    prices: MYSQL_FLEXIBLE_PRICES,
    storageFor: mysqlStorageFor,
    getServer: async (rg, name, signal) => view(await c.servers.get(rg, name, { abortSignal: signal })),
    createServer: (rg, name, p, signal) =>
      c.servers.beginCreate(
        rg,
        name,
        {
          location: p.location,
          sku: { name: p.skuName, tier: skuTier(p.skuName) },
          version: p.version,
          storage: { storageSizeGB: p.storageSizeGB },
          administratorLogin: p.administratorLogin,
          administratorLoginPassword: p.administratorLoginPassword,
          createMode: 'Default',
          tags: p.tags,
        },
        { abortSignal: signal },
      ),
    updateServer: (rg, name, p, signal) =>
      c.servers.beginUpdate(
        rg,
        name,
        { sku: { name: p.skuName, tier: skuTier(p.skuName) }, storage: { storageSizeGB: p.storageSizeGB } },
        { abortSignal: signal },
      ),
    deleteServer: (rg, name, signal) => c.servers.beginDelete(rg, name, { abortSignal: signal }),
    getDatabase: (rg, server, db, signal) => c.databases.get(rg, server, db, { abortSignal: signal }),
    createDatabase: (rg, server, db, signal) =>
      c.databases.beginCreateOrUpdate(rg, server, db, { charset: 'utf8mb4', collation: 'utf8mb4_0900_ai_ci' }, { abortSignal: signal }),
  };
}

type FlexibleServer = PostgreSQLFlexibleServer | MySQLFlexibleServer;

interface Wanted {
  name: string;
  location?: string;
  version: string;
  skuName: string;
  storageSizeGB: number;
  administratorLogin: string;
  databaseName: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A FlexibleServerClient is the ExternalClient of one engine's servers, reached with one Provider's service principal. */
/** flexibleServerSize is the SKU and storage a server's spec asks for, with the defaults (Standard_B1ms, 32 GB) and the engine's storage steps. */
export function flexibleServerSize(resource: KObject, storageFor: (gb: number) => number): { skuName: string; storageSizeGB: number } {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const fp = isPlainObject(spec.forProvider) ? spec.forProvider : {};
  const storage = typeof fp.storageSizeGB === 'number' && fp.storageSizeGB >= 32 ? fp.storageSizeGB : 32;
  return { skuName: str(fp.skuName) ?? 'Standard_B1ms', storageSizeGB: storageFor(storage) };
}

/** postgresStorageFor rounds up to the storage sizes a PostgreSQL flexible server offers; MySQL takes any size. */
export const postgresStorageFor = (gb: number): number =>
  POSTGRES_STORAGE_SIZES_GB.find((s) => s >= gb) ?? POSTGRES_STORAGE_SIZES_GB[POSTGRES_STORAGE_SIZES_GB.length - 1];
export const mysqlStorageFor = (gb: number): number => gb;

export class FlexibleServerClient implements ExternalClient<FlexibleServer> {
  constructor(
    private readonly access: ArmAccess,
    private readonly engine: FlexibleEngine,
    private readonly provider: KObject | undefined,
    private readonly operations: Operations,
  ) {}

  private wanted(resource: FlexibleServer): Wanted {
    const { name, location } = armResourceSettings(resource, 'server', 'serverName', this.provider);
    const fp: Record<string, unknown> = resource.spec.forProvider ?? {};
    return {
      name,
      ...(location ? { location } : {}),
      version: str(fp.version) ?? (this.engine.engine === 'mysql' ? '8.0.21' : '16'),
      ...flexibleServerSize(resource, this.engine.storageFor),
      administratorLogin: str(fp.administratorLogin) ?? 'conductor',
      databaseName: str(fp.databaseName) ?? 'app',
    };
  }

  private key(w: Wanted, part = ''): string {
    return `${this.engine.engine}/${this.access.subscriptionId}/${this.access.resourceGroup.toLowerCase()}/${w.name}${part}`;
  }

  private resourceTag(resource: KObject): string {
    return `${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
  }

  private password(w: Wanted): string {
    return adminPassword(this.access.adminPasswordKey, this.access.subscriptionId, this.access.resourceGroup, w.name);
  }

  private async getServer(w: Wanted, signal?: AbortSignal): Promise<ServerView | undefined> {
    try {
      return await this.engine.getServer(this.access.resourceGroup, w.name, signal);
    } catch (err) {
      if (isResourceNotFound(err)) return undefined;
      throw armError(err, `read ${this.engine.label} ${w.name}`);
    }
  }

  /** databaseState says whether the database exists, is being made (by this process), or is missing. */
  private async databaseState(w: Wanted, signal?: AbortSignal): Promise<'exists' | 'creating' | 'missing'> {
    try {
      await this.engine.getDatabase(this.access.resourceGroup, w.name, w.databaseName, signal);
      this.operations.forget(this.key(w, `/db/${w.databaseName}`));
      return 'exists';
    } catch (err) {
      if (!isResourceNotFound(err)) throw armError(err, `read database ${w.databaseName} of ${this.engine.label} ${w.name}`);
    }
    const poller = this.operations.get(this.key(w, `/db/${w.databaseName}`));
    if (!poller) return 'missing';
    const outcome = await pollOnce(poller, signal);
    if (outcome.state === 'running') return 'creating';
    this.operations.forget(this.key(w, `/db/${w.databaseName}`));
    if (outcome.state === 'failed') throw operationFailed(outcome.error, `create database ${w.databaseName} in ${this.engine.label} ${w.name}`);
    return 'missing';
  }

  private connectionDetails(resource: FlexibleServer, w: Wanted, server: ServerView): ConnectionDetails {
    const host = server.fullyQualifiedDomainName ?? '';
    const port = String(this.engine.port);
    const username = server.administratorLogin ?? w.administratorLogin;
    // Only a server made for this resource has Conductor's password; an imported one's is its owner's.
    const password = server.tags?.[RESOURCE_TAG] === this.resourceTag(resource) ? this.password(w) : '';
    const auth = password ? `${encodeURIComponent(username)}:${encodeURIComponent(password)}` : encodeURIComponent(username);
    const query = this.engine.engine === 'mysql' ? '?ssl-mode=REQUIRED' : '?sslmode=require';
    return {
      host,
      port,
      username,
      password,
      database: w.databaseName,
      uri: `${this.engine.scheme}://${auth}@${uriHost(host)}:${port}/${encodeURIComponent(w.databaseName)}${query}`,
      serverName: w.name,
      sslmode: 'require',
    };
  }

  async observe(resource: FlexibleServer, options: CallOptions = {}): Promise<ExternalObservation> {
    const w = this.wanted(resource);
    let server = await this.getServer(w, options.signal);
    if (!server) {
      const poller = this.operations.get(this.key(w));
      if (!poller) return { exists: false, upToDate: false };
      const outcome = await pollOnce(poller, options.signal);
      if (outcome.state === 'running') {
        return {
          exists: true,
          upToDate: true,
          notReady: { reason: 'Creating', message: `Azure is creating ${this.engine.label} ${w.name}; its operation is polled until it has succeeded` },
        };
      }
      this.operations.forget(this.key(w));
      if (outcome.state === 'failed') throw operationFailed(outcome.error, `create ${this.engine.label} ${w.name}`);
      server = await this.getServer(w, options.signal);
      if (!server) return { exists: false, upToDate: false };
    }
    this.operations.forget(this.key(w));
    const state = server.state ?? 'Unknown';
    const location = (w.location ?? server.location ?? '') as Parameters<typeof hourlyMonthlyPrice>[1];
    const atProvider = {
      serverName: w.name,
      state,
      ...(server.fullyQualifiedDomainName ? { fullyQualifiedDomainName: server.fullyQualifiedDomainName } : {}),
      ...(server.version ? { version: server.version } : {}),
      ...(server.skuName ? { skuName: server.skuName } : {}),
      ...(server.storageSizeGB !== undefined ? { storageSizeGB: server.storageSizeGB } : {}),
      ...(server.location ? { location: server.location } : {}),
      ...priceStatusOf(hourlyMonthlyPrice(this.engine.prices, location || undefined, w.skuName, w.storageSizeGB)),
    };
    if (state !== 'Ready') {
      const passing = ['Updating', 'Dropping', 'Starting', 'Stopping', 'Restarting', 'Provisioning'].includes(state);
      return {
        exists: true,
        upToDate: true,
        atProvider,
        notReady: {
          reason: passing ? state : `Server${state}`,
          message: passing
            ? `Azure reports ${this.engine.label} ${w.name} ${state}; polled until it is Ready`
            : `Azure reports ${this.engine.label} ${w.name} ${state}: it needs an administrator (a stopped server is started in the Azure portal)`,
        },
      };
    }
    const differences: string[] = [];
    if (server.skuName !== undefined && server.skuName !== w.skuName) differences.push(`SKU is ${server.skuName}, spec wants ${w.skuName}`);
    if (server.storageSizeGB !== undefined && server.storageSizeGB < w.storageSizeGB)
      differences.push(`storage is ${server.storageSizeGB} GB, spec wants ${w.storageSizeGB}`);
    const database = await this.databaseState(w, options.signal);
    if (database === 'creating') {
      return {
        exists: true,
        upToDate: true,
        atProvider,
        notReady: { reason: 'CreatingDatabase', message: `Azure is creating database ${w.databaseName} in ${this.engine.label} ${w.name}` },
      };
    }
    if (database === 'missing') differences.push(`database ${w.databaseName} does not exist`);
    return {
      exists: true,
      upToDate: differences.length === 0,
      ...(differences.length > 0 ? { drift: differences.join('; ') } : {}),
      atProvider,
      connectionDetails: this.connectionDetails(resource, w, server),
    };
  }

  async create(resource: FlexibleServer, options: CallOptions = {}): Promise<ExternalCreation> {
    const w = this.wanted(resource);
    const existing = await this.getServer(w, options.signal);
    if (existing) {
      if (existing.tags?.[RESOURCE_TAG] !== this.resourceTag(resource)) {
        throw new ArmError(
          'Conflict',
          `cannot create ${this.engine.label} ${w.name}: a server of that name exists in resource group ${this.access.resourceGroup} and was not made for this resource — import it with the annotation conductor.io/external-name (and managementPolicy ObserveOnly), or set another spec.forProvider.serverName`,
        );
      }
      // An earlier, interrupted create of this resource made it: done.
      return { externalName: w.name };
    }
    if (!w.location) {
      throw new ArmError(
        'InvalidParameter',
        `cannot create ${this.engine.label} ${w.name}: no location — set spec.forProvider.location or the Provider's spec.region`,
      );
    }
    try {
      const poller = await this.engine.createServer(
        this.access.resourceGroup,
        w.name,
        {
          location: w.location,
          skuName: w.skuName,
          version: w.version,
          storageSizeGB: w.storageSizeGB,
          administratorLogin: w.administratorLogin,
          administratorLoginPassword: this.password(w),
          tags: { [RESOURCE_TAG]: this.resourceTag(resource), 'conductor.io/managed-by': 'conductor' },
        },
        options.signal,
      );
      this.operations.started(this.key(w), poller);
    } catch (err) {
      throw armError(err, `create ${this.engine.label} ${w.name}`);
    }
    return { externalName: w.name };
  }

  async update(resource: FlexibleServer, options: CallOptions = {}): Promise<ExternalUpdate> {
    const w = this.wanted(resource);
    const server = await this.getServer(w, options.signal);
    if (!server) return {};
    try {
      if (server.skuName !== w.skuName || (server.storageSizeGB ?? 0) < w.storageSizeGB) {
        const storageSizeGB = Math.max(server.storageSizeGB ?? 0, w.storageSizeGB);
        await this.engine.updateServer(this.access.resourceGroup, w.name, { skuName: w.skuName, storageSizeGB }, options.signal);
        return {};
      }
    } catch (err) {
      throw armError(err, `update ${this.engine.label} ${w.name}`);
    }
    try {
      const poller = await this.engine.createDatabase(this.access.resourceGroup, w.name, w.databaseName, options.signal);
      this.operations.started(this.key(w, `/db/${w.databaseName}`), poller);
    } catch (err) {
      throw armError(err, `create database ${w.databaseName} in ${this.engine.label} ${w.name}`);
    }
    return {};
  }

  async delete(resource: FlexibleServer, options: CallOptions = {}): Promise<void> {
    const w = this.wanted(resource);
    this.operations.forget(this.key(w));
    this.operations.forget(this.key(w, `/db/${w.databaseName}`));
    try {
      await this.engine.deleteServer(this.access.resourceGroup, w.name, options.signal);
    } catch (err) {
      if (isResourceNotFound(err)) return;
      const e = armError(err, `delete ${this.engine.label} ${w.name}`);
      if (e instanceof ArmError && e.reason === 'Conflict') {
        const now = await this.getServer(w, options.signal);
        if (!now || now.state === 'Dropping') return;
      }
      throw e;
    }
  }
}

/** operationFailed is the error of a long-running operation that ended Failed (Azure's error, classified). */
export function operationFailed(error: unknown, what: string): Error {
  const e = armError(error, what);
  if (e instanceof ArmError && e.reason === 'RequestFailed')
    return new ArmError('OperationFailed', `${e.message} (the operation failed)`, e.statusCode, e.code);
  return e;
}
