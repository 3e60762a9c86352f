/**
 * The external client of a RedisCache: an Azure Cache for Redis, by name, in the subscription
 * and resource group of the Provider's service principal. ARM makes the cache at once with
 * `provisioningState: Creating` and moves it to `Succeeded` (Updating after a change, Deleting
 * at the end), so:
 * - observe is GET: a cache not `Succeeded` is reported not ready with its state as the reason
 *   (Creating, Updating, Scaling, …; Failed needs an administrator); a Succeeded one publishes
 *   the TLS port and the primary access key (listKeys);
 * - create GETs first: a cache made for this resource (tag `conductor.io/resource`) is done,
 *   one made for anything else is refused (ARM's PUT would change it); then PUT — TLS only,
 *   TLS 1.2 at least;
 * - update PATCHes the SKU and capacity; delete is DELETE (gone is fine).
 */
import { isPlainObject, type KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { uriHost } from '../uri-host.js';
import type { ArmClients } from './arm-clients.js';
import { ArmError, armError, isResourceNotFound } from './arm-errors.js';
import { armResourceSettings, priceStatusOf, RESOURCE_TAG } from './arm-settings.js';
import type { ArmAccess } from './credentials.js';
import type { RedisCache } from './kinds.js';
import { REDIS_PRICES, type RedisSku } from './price-table.js';
import { hourlyMonthlyPrice } from './prices.js';

interface Wanted {
  name: string;
  location?: string;
  sku: RedisSku;
  family: 'C' | 'P';
  capacity: number;
}

interface CacheView {
  provisioningState?: string;
  hostName?: string;
  sslPort?: number;
  sku?: { name?: string; family?: string; capacity?: number };
  tags?: Record<string, string>;
  location?: string;
  redisVersion?: string;
}

/** redisSize is how Azure names a size: C1, P2. */
export const redisSize = (w: { family: string; capacity: number }) => `${w.family}${w.capacity}`;

/** A RedisCacheClient is the ExternalClient of RedisCaches reached with one Provider's service principal. */
/** redisCacheSku is the SKU, family and capacity a cache's spec asks for, with the defaults (Basic C0; Premium P1). */
export function redisCacheSku(resource: KObject): { sku: RedisSku; family: 'C' | 'P'; capacity: number } {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const fp = isPlainObject(spec.forProvider) ? spec.forProvider : {};
  const sku: RedisSku = fp.sku === 'Standard' || fp.sku === 'Premium' ? fp.sku : 'Basic';
  const capacity = typeof fp.capacity === 'number' ? fp.capacity : sku === 'Premium' ? 1 : 0;
  return { sku, family: sku === 'Premium' ? 'P' : 'C', capacity };
}

export class RedisCacheClient implements ExternalClient<RedisCache> {
  constructor(
    private readonly access: ArmAccess,
    private readonly clients: ArmClients,
    private readonly provider: KObject | undefined,
  ) {}

  private wanted(resource: RedisCache): Wanted {
    const { name, location } = armResourceSettings(resource, 'cache', 'cacheName', this.provider);
    return { name, ...(location ? { location } : {}), ...redisCacheSku(resource) };
  }

  private resourceTag(resource: KObject): string {
    return `${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
  }

  private async get(w: Wanted, signal?: AbortSignal): Promise<CacheView | undefined> {
    try {
      return await this.clients.redis.redis.get(this.access.resourceGroup, w.name, { abortSignal: signal });
    } catch (err) {
      if (isResourceNotFound(err)) return undefined;
      throw armError(err, `read Redis cache ${w.name}`);
    }
  }

  private async connectionDetails(w: Wanted, cache: CacheView, signal?: AbortSignal): Promise<ConnectionDetails> {
    let password: string;
    try {
      const keys = await this.clients.redis.redis.listKeys(this.access.resourceGroup, w.name, { abortSignal: signal });
      password = keys.primaryKey ?? '';
    } catch (err) {
      throw armError(err, `list the access keys of Redis cache ${w.name}`);
    }
    const host = cache.hostName ?? '';
    const port = String(cache.sslPort ?? 6380);
    return {
      host,
      port,
      password,
      uri: `rediss://${password ? `:${encodeURIComponent(password)}@` : ''}${uriHost(host)}:${port}`,
      ssl: 'true',
      cacheName: w.name,
    };
  }

  async observe(resource: RedisCache, options: CallOptions = {}): Promise<ExternalObservation> {
    const w = this.wanted(resource);
    const cache = await this.get(w, options.signal);
    if (!cache) return { exists: false, upToDate: false };
    const state = cache.provisioningState ?? 'Unknown';
    const location = (w.location ?? cache.location) as Parameters<typeof hourlyMonthlyPrice>[1];
    const atProvider = {
      cacheName: w.name,
      provisioningState: state,
      ...(cache.hostName ? { hostName: cache.hostName } : {}),
      ...(cache.sku?.name ? { sku: `${cache.sku.name} ${cache.sku.family ?? ''}${cache.sku.capacity ?? ''}` } : {}),
      ...(cache.redisVersion ? { redisVersion: cache.redisVersion } : {}),
      ...(cache.location ? { location: cache.location } : {}),
      ...priceStatusOf(hourlyMonthlyPrice(REDIS_PRICES, location, `${w.sku} ${redisSize(w)}`)),
    };
    if (state !== 'Succeeded') {
      const failed = state === 'Failed' || state === 'Disabled';
      return {
        exists: true,
        upToDate: true,
        atProvider,
        notReady: {
          reason: failed ? `Cache${state}` : state,
          message: failed
            ? `Azure reports Redis cache ${w.name} ${state}: it needs an administrator (see its activity log in the Azure portal)`
            : `Azure reports Redis cache ${w.name} ${state}; polled until it has Succeeded`,
        },
      };
    }
    const have = cache.sku ?? {};
    const drift =
      have.name !== undefined && (have.name !== w.sku || have.capacity !== w.capacity)
        ? `SKU is ${have.name} ${have.family ?? ''}${have.capacity ?? ''}, spec wants ${w.sku} ${redisSize(w)}`
        : undefined;
    return {
      exists: true,
      upToDate: drift === undefined,
      ...(drift ? { drift } : {}),
      atProvider,
      connectionDetails: await this.connectionDetails(w, cache, options.signal),
    };
  }

  async create(resource: RedisCache, options: CallOptions = {}): Promise<ExternalCreation> {
    const w = this.wanted(resource);
    const existing = await this.get(w, options.signal);
    if (existing) {
      if (existing.tags?.[RESOURCE_TAG] !== this.resourceTag(resource)) {
        throw new ArmError(
          'Conflict',
          `cannot create Redis cache ${w.name}: a cache of that name exists in resource group ${this.access.resourceGroup} and was not made for this resource — import it with the annotation conductor.io/external-name (and managementPolicy ObserveOnly), or set another spec.forProvider.cacheName`,
        );
      }
      return { externalName: w.name };
    }
    if (!w.location)
      throw new ArmError('InvalidParameter', `cannot create Redis cache ${w.name}: no location — set spec.forProvider.location or the Provider's spec.region`);
    try {
      await this.clients.redis.redis.beginCreate(
        this.access.resourceGroup,
        w.name,
        {
          location: w.location,
          sku: { name: w.sku, family: w.family, capacity: w.capacity },
          enableNonSslPort: false,
          minimumTlsVersion: '1.2',
          tags: { [RESOURCE_TAG]: this.resourceTag(resource), 'conductor.io/managed-by': 'conductor' },
        },
        { abortSignal: options.signal },
      );
    } catch (err) {
      throw armError(err, `create Redis cache ${w.name}`);
    }
    return { externalName: w.name };
  }

  async update(resource: RedisCache, options: CallOptions = {}): Promise<ExternalUpdate> {
    const w = this.wanted(resource);
    try {
      await this.clients.redis.redis.beginUpdate(
        this.access.resourceGroup,
        w.name,
        { sku: { name: w.sku, family: w.family, capacity: w.capacity } },
        { abortSignal: options.signal },
      );
    } catch (err) {
      throw armError(err, `update Redis cache ${w.name}`);
    }
    return {};
  }

  async delete(resource: RedisCache, options: CallOptions = {}): Promise<void> {
    const w = this.wanted(resource);
    try {
      await this.clients.redis.redis.beginDelete(this.access.resourceGroup, w.name, { abortSignal: options.signal });
    } catch (err) {
      if (isResourceNotFound(err)) return;
      throw armError(err, `delete Redis cache ${w.name}`);
    }
  }
}
