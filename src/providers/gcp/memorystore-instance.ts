/**
 * The external client of a MemorystoreInstance: a Memorystore for Redis instance, by id, in a
 * region of the project the Provider's credentials reach (Memorystore for Redis API v1, REST).
 * An instance is CREATING, then READY, UPDATING while a change is applied, DELETING at the end:
 * - observe reads the instance (missing → absent); one not READY is Ready=False with its state
 *   as the reason (Creating, Updating, Repairing, …); a READY one made for this resource with
 *   another size or eviction policy is out of date; connection details are its host and port
 *   and, when authEnabled, its AUTH string (read from the API each time, stored nowhere else);
 * - create creates it under the id recorded before (`deterministicExternalNames`), labelled
 *   `conductor-io-owner: <hash of the resource>`; 409 ALREADY_EXISTS of an instance with this
 *   resource's label is an earlier, interrupted create (done), of any other is refused; then it
 *   polls the instance with backoff (up to 30 s) and leaves the rest to observations;
 * - update patches memorySizeGb and the eviction policy (tier, version, auth and encryption are
 *   fixed at creation: a change is reported, not applied);
 * - delete deletes it; a gone one is done.
 */
import type { KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { uriHost } from '../uri-host.js';
import type { GcpCredentials } from './credentials.js';
import { bounded, GcpError, gcpError, GRPC, grpcCodeOf } from './errors.js';
import type { MemorystoreInstance } from './kinds.js';
import { pollWithBackoff } from './poll.js';
import { MEMORYSTORE_PRICES } from './price-table.js';
import { memorystoreMonthlyPrice, priceStatus } from './prices.js';
import { redisClientOf } from './rest-clients.js';
import { memorystoreSettings, type MemorystoreSettings } from './kind-settings.js';

const CALL_MS = 60_000;
const OPERATION_WAIT_MS = 30_000;
/** The label of an instance Conductor made: a hash of the namespace and name of the resource that made it. */
export const OWNER_LABEL = 'conductor-io-owner';

interface RedisInstance {
  state?: unknown;
  host?: string | null;
  port?: number | null;
  tier?: unknown;
  memorySizeGb?: number | null;
  redisVersion?: string | null;
  authEnabled?: boolean | null;
  transitEncryptionMode?: unknown;
  redisConfigs?: Record<string, string> | null;
  labels?: Record<string, string> | null;
}

const PASSING = new Set(['CREATING', 'UPDATING', 'DELETING', 'REPAIRING', 'MAINTENANCE', 'IMPORTING', 'FAILING_OVER']);
const reasonOf = (state: string) =>
  state
    .toLowerCase()
    .split('_')
    .filter((p) => p !== '')
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('') || 'Unknown';

/** A MemorystoreInstanceClient is the ExternalClient of MemorystoreInstances of one project. */
export class MemorystoreInstanceClient implements ExternalClient<MemorystoreInstance> {
  private readonly redis: ReturnType<typeof redisClientOf>;

  constructor(
    private readonly credentials: GcpCredentials,
    private readonly provider: KObject | undefined,
  ) {
    this.redis = redisClientOf(credentials);
  }

  private settings(resource: KObject): MemorystoreSettings {
    return memorystoreSettings(resource, this.provider, this.credentials.projectId);
  }

  private async instance(s: MemorystoreSettings, signal?: AbortSignal): Promise<RedisInstance | undefined> {
    try {
      const [instance] = await bounded(this.redis.getInstance({ name: s.name }), CALL_MS, signal);
      return instance;
    } catch (err) {
      if (grpcCodeOf(err) === GRPC.NOT_FOUND) return undefined;
      throw gcpError(err, `read Memorystore instance ${s.id} in ${s.region}`);
    }
  }

  private ours(s: MemorystoreSettings, instance: RedisInstance): boolean {
    return instance.labels?.[OWNER_LABEL] === s.owner;
  }

  private async authString(s: MemorystoreSettings, signal?: AbortSignal): Promise<string> {
    try {
      const [auth] = await bounded(this.redis.getInstanceAuthString({ name: s.name }), CALL_MS, signal);
      return auth.authString ?? '';
    } catch (err) {
      throw gcpError(err, `read the AUTH string of Memorystore instance ${s.id}`);
    }
  }

  private async connectionDetails(s: MemorystoreSettings, instance: RedisInstance, signal?: AbortSignal): Promise<ConnectionDetails> {
    const host = instance.host ?? '';
    const port = String(instance.port ?? 6379);
    const password = instance.authEnabled ? await this.authString(s, signal) : '';
    const tls = String(instance.transitEncryptionMode ?? '') === 'SERVER_AUTHENTICATION';
    return {
      host,
      port,
      password,
      uri: `${tls ? 'rediss' : 'redis'}://${password ? `:${encodeURIComponent(password)}@` : ''}${uriHost(host)}:${port}`,
      projectId: this.credentials.projectId,
      instanceId: s.id,
      tls: String(tls),
    };
  }

  async observe(resource: MemorystoreInstance, options: CallOptions = {}): Promise<ExternalObservation> {
    const s = this.settings(resource);
    const instance = await this.instance(s, options.signal);
    if (!instance) return { exists: false, upToDate: false };
    const state = String(instance.state ?? 'STATE_UNSPECIFIED');
    const atProvider = {
      instanceId: s.id,
      region: s.region,
      state,
      tier: String(instance.tier ?? s.tier),
      memorySizeGb: instance.memorySizeGb ?? 0,
      ...(instance.redisVersion ? { redisVersion: instance.redisVersion } : {}),
      ...(instance.host ? { endpoint: `${instance.host}:${instance.port ?? 6379}` } : {}),
      ...priceStatus(memorystoreMonthlyPrice(MEMORYSTORE_PRICES, s.region, s.tier, s.memorySizeGb)),
    };
    if (state !== 'READY') {
      const message = PASSING.has(state)
        ? `Memorystore reports the instance ${state}; looked at again until it is READY`
        : `Memorystore reports the instance ${state}: it needs an administrator`;
      return { exists: true, upToDate: true, atProvider, notReady: { reason: PASSING.has(state) ? reasonOf(state) : `Instance${reasonOf(state)}`, message } };
    }
    const drift: string[] = [];
    if (this.ours(s, instance)) {
      if ((instance.memorySizeGb ?? 0) !== s.memorySizeGb) drift.push(`memory is ${instance.memorySizeGb ?? 0} GB, spec wants ${s.memorySizeGb}`);
      const policy = instance.redisConfigs?.['maxmemory-policy'];
      if (s.evictionPolicy && policy !== s.evictionPolicy) drift.push(`maxmemory-policy is ${policy ?? 'the default'}, spec wants ${s.evictionPolicy}`);
    }
    return {
      exists: true,
      upToDate: drift.length === 0,
      ...(drift.length > 0 ? { drift: drift.join('; ') } : {}),
      atProvider,
      connectionDetails: await this.connectionDetails(s, instance, options.signal),
    };
  }

  async create(resource: MemorystoreInstance, options: CallOptions = {}): Promise<ExternalCreation> {
    const s = this.settings(resource);
    try {
      await bounded(
        this.redis.createInstance({
          parent: `projects/${this.credentials.projectId}/locations/${s.region}`,
          instanceId: s.id,
          instance: {
            tier: s.tier,
            memorySizeGb: s.memorySizeGb,
            ...(s.redisVersion ? { redisVersion: s.redisVersion } : {}),
            authEnabled: s.authEnabled,
            transitEncryptionMode: s.transitEncryption ? 'SERVER_AUTHENTICATION' : 'DISABLED',
            ...(s.evictionPolicy ? { redisConfigs: { 'maxmemory-policy': s.evictionPolicy } } : {}),
            labels: { [OWNER_LABEL]: s.owner, 'managed-by': 'conductor' },
          },
        }),
        CALL_MS,
        options.signal,
      );
    } catch (err) {
      if (grpcCodeOf(err) !== GRPC.ALREADY_EXISTS) throw gcpError(err, `create Memorystore instance ${s.id} (${s.tier}, ${s.memorySizeGb} GB, ${s.region})`);
      const existing = await this.instance(s, options.signal);
      if (existing && !this.ours(s, existing)) {
        throw new GcpError(
          'AlreadyExists',
          `cannot create Memorystore instance ${s.id}: an instance of that id exists in ${s.region} and was not made for this resource — import it with the annotation conductor.io/external-name (and managementPolicy ObserveOnly), or set another spec.forProvider.instanceId`,
          GRPC.ALREADY_EXISTS,
        );
      }
    }
    await pollWithBackoff(
      async () => {
        const i = await this.instance(s, options.signal);
        return i && String(i.state) === 'READY' ? true : undefined;
      },
      OPERATION_WAIT_MS,
      options.signal,
    );
    return { externalName: s.id };
  }

  async update(resource: MemorystoreInstance, options: CallOptions = {}): Promise<ExternalUpdate> {
    const s = this.settings(resource);
    const instance = await this.instance(s, options.signal);
    if (!instance || String(instance.state) !== 'READY') return {};
    const paths: string[] = [];
    if ((instance.memorySizeGb ?? 0) !== s.memorySizeGb) paths.push('memory_size_gb');
    if (s.evictionPolicy && instance.redisConfigs?.['maxmemory-policy'] !== s.evictionPolicy) paths.push('redis_configs');
    if (paths.length === 0) return {};
    try {
      await bounded(
        this.redis.updateInstance({
          updateMask: { paths },
          instance: {
            name: s.name,
            memorySizeGb: s.memorySizeGb,
            ...(s.evictionPolicy ? { redisConfigs: { ...(instance.redisConfigs ?? {}), 'maxmemory-policy': s.evictionPolicy } } : {}),
          },
        }),
        CALL_MS,
        options.signal,
      );
    } catch (err) {
      throw gcpError(err, `change Memorystore instance ${s.id} (${paths.join(', ')})`);
    }
    return {};
  }

  async delete(resource: MemorystoreInstance, options: CallOptions = {}): Promise<void> {
    const s = this.settings(resource);
    try {
      await bounded(this.redis.deleteInstance({ name: s.name }), CALL_MS, options.signal);
    } catch (err) {
      if (grpcCodeOf(err) === GRPC.NOT_FOUND) return;
      throw gcpError(err, `delete Memorystore instance ${s.id}`);
    }
  }

  async close(): Promise<void> {
    await this.redis.close().catch(() => undefined);
  }
}
