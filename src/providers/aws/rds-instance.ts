/**
 * The external client of an RDSInstance: a DB instance, by identifier, in the account and
 * region the Provider's keys reach. RDS works in long-running operations — an instance is
 * `creating`, then `available`, `modifying` after a change, `deleting` at the end — so:
 * - observe is DescribeDBInstances; an instance in a passing state is reported not ready with
 *   the state as the reason (Creating, Modifying, BackingUp, …) and polled with backoff (5 s,
 *   doubling while the state stays, up to 60 s: between polls observe answers from what it last
 *   saw, without calling AWS); a failed or stopped one is reported so; a missing one is absent;
 * - create is CreateDBInstance with the identifier recorded before it (the resource's name
 *   rule: `deterministicExternalNames`) and a master password derived from the Provider's key
 *   (rds-password.ts), tagged `conductor.io/resource: <namespace>/<name>`; an instance of that
 *   identifier already made for this resource (an earlier, interrupted create) counts as done,
 *   one made for anything else is refused (import it with conductor.io/external-name);
 * - update is ModifyDBInstance (class, storage — only up —, Multi-AZ; applied immediately);
 * - delete is DeleteDBInstance (final snapshot if asked); a gone or already deleting instance is fine.
 * Quota, throttling and invalid-parameter errors become conditions (errors.ts).
 */
import {
  CreateDBInstanceCommand,
  DeleteDBInstanceCommand,
  DescribeDBInstancesCommand,
  ModifyDBInstanceCommand,
  RDSClient,
  type DBInstance,
} from '@aws-sdk/client-rds';
import type { KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { uriHost } from '../uri-host.js';
import { clientConfig } from './aws-clients.js';
import type { AwsCredentials } from './credentials.js';
import { AwsError, awsError, codeOf, isAbort } from './errors.js';
import type { RDSInstance } from './kinds.js';
import { RDS_INSTANCE_CLASSES, RDS_STORAGE_TYPES, type AwsRegion, type RdsEngine, type RdsInstanceClass, type RdsStorageType } from './price-table.js';
import { priceStatus, rdsMonthlyPrice } from './prices.js';
import { masterPassword } from './rds-password.js';
import { externalNameOf, forProviderOf, regionOf, RESOURCE_TAG } from './settings.js';
import { PollSchedule, reasonOf } from './poll-schedule.js';

export { FIRST_POLL_MS, MAX_POLL_MS, PollSchedule, reasonOf } from './poll-schedule.js';

export { RESOURCE_TAG } from './settings.js';

const MISSING = new Set(['DBInstanceNotFound', 'DBInstanceNotFoundFault']);

/** Passing states: the instance will come back to `available` (or go) by itself. */
export const RDS_PASSING_STATES: ReadonlySet<string> = new Set([
  'creating',
  'backing-up',
  'modifying',
  'rebooting',
  'renaming',
  'resetting-master-credentials',
  'storage-optimization',
  'upgrading',
  'maintenance',
  'starting',
  'stopping',
  'deleting',
  'configuring-enhanced-monitoring',
  'configuring-log-exports',
  'configuring-iam-database-auth',
  'moving-to-vpc',
  'converting-to-vpc',
]);
const PASSING = RDS_PASSING_STATES;

/** rdsPollSchedule is the schedule of RDS instances' polls (one per running provider). */
export const rdsPollSchedule = (now?: () => number) => new PollSchedule(RDS_PASSING_STATES, now);

interface Wanted {
  id: string;
  region: AwsRegion;
  engine: RdsEngine;
  engineVersion?: string;
  instanceClass: RdsInstanceClass;
  storageGi: number;
  storageType: RdsStorageType;
  multiAZ: boolean;
  publiclyAccessible: boolean;
  masterUsername: string;
  databaseName: string;
  dbSubnetGroupName?: string;
  vpcSecurityGroupIds?: string[];
  finalSnapshot: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** An RDSInstanceClient is the ExternalClient of RDSInstances reached with one Provider's keys. */
export class RDSInstanceClient implements ExternalClient<RDSInstance> {
  constructor(
    private readonly credentials: AwsCredentials,
    private readonly provider: KObject | undefined,
    private readonly polls: PollSchedule,
  ) {}

  private wanted(resource: RDSInstance): Wanted {
    const fp = forProviderOf(resource);
    const id = externalNameOf(resource, 'instance', 'instanceIdentifier');
    const engine: RdsEngine = fp.engine === 'mysql' ? 'mysql' : 'postgres';
    const instanceClass = (RDS_INSTANCE_CLASSES as readonly unknown[]).includes(fp.instanceClass) ? (fp.instanceClass as RdsInstanceClass) : 'db.t4g.micro';
    const storageType = (RDS_STORAGE_TYPES as readonly unknown[]).includes(fp.storageType) ? (fp.storageType as RdsStorageType) : 'gp3';
    const groups = Array.isArray(fp.vpcSecurityGroupIds) ? fp.vpcSecurityGroupIds.filter((g): g is string => typeof g === 'string') : undefined;
    return {
      id,
      region: regionOf(resource, this.provider, `DB instance ${id}`),
      engine,
      ...(str(fp.engineVersion) ? { engineVersion: str(fp.engineVersion) } : {}),
      instanceClass,
      storageGi: typeof fp.allocatedStorageGi === 'number' && fp.allocatedStorageGi >= 20 ? fp.allocatedStorageGi : 20,
      storageType,
      multiAZ: fp.multiAZ === true,
      publiclyAccessible: fp.publiclyAccessible === true,
      masterUsername: str(fp.masterUsername) ?? 'conductor',
      databaseName: str(fp.databaseName) ?? 'app',
      ...(str(fp.dbSubnetGroupName) ? { dbSubnetGroupName: str(fp.dbSubnetGroupName) } : {}),
      ...(groups && groups.length > 0 ? { vpcSecurityGroupIds: groups } : {}),
      finalSnapshot: fp.finalSnapshot === true,
    };
  }

  private client(region: string): RDSClient {
    return new RDSClient(clientConfig(this.credentials, region, 'rds'));
  }

  private async describe(w: Wanted, signal?: AbortSignal): Promise<DBInstance | undefined> {
    try {
      const out = await this.client(w.region).send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: w.id }), { abortSignal: signal });
      return out.DBInstances?.[0];
    } catch (err) {
      if (MISSING.has(codeOf(err) ?? '')) return undefined;
      throw awsError(err, `describe DB instance ${w.id}`);
    }
  }

  private resourceTag(resource: KObject): string {
    return `${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
  }

  private madeFor(instance: DBInstance): string | undefined {
    return instance.TagList?.find((t) => t.Key === RESOURCE_TAG)?.Value;
  }

  private connectionDetails(resource: RDSInstance, w: Wanted, instance: DBInstance): ConnectionDetails {
    const host = instance.Endpoint?.Address ?? '';
    const port = String(instance.Endpoint?.Port ?? (w.engine === 'mysql' ? 3306 : 5432));
    const username = instance.MasterUsername ?? w.masterUsername;
    const database = instance.DBName ?? w.databaseName;
    // Only an instance made for this resource has Conductor's password; an imported one's is its owner's.
    const password = this.madeFor(instance) === this.resourceTag(resource) ? masterPassword(this.credentials.masterPasswordKey, w.region, w.id) : '';
    const scheme = w.engine === 'mysql' ? 'mysql' : 'postgresql';
    const auth = password ? `${encodeURIComponent(username)}:${encodeURIComponent(password)}` : encodeURIComponent(username);
    return {
      host,
      port,
      username,
      password,
      database,
      uri: `${scheme}://${auth}@${uriHost(host)}:${port}/${encodeURIComponent(database)}`,
      engine: w.engine,
      instanceIdentifier: w.id,
    };
  }

  async observe(resource: RDSInstance, options: CallOptions = {}): Promise<ExternalObservation> {
    const w = this.wanted(resource);
    const key = `${w.region}/${w.id.toLowerCase()}`;
    const cached = this.polls.cached(key);
    if (cached) return cached;
    const instance = await this.describe(w, options.signal);
    if (!instance) {
      this.polls.forget(key);
      return { exists: false, upToDate: false };
    }
    const status = instance.DBInstanceStatus ?? 'unknown';
    const pending = instance.PendingModifiedValues ?? {};
    const haveClass = pending.DBInstanceClass ?? instance.DBInstanceClass;
    const haveStorage = pending.AllocatedStorage ?? instance.AllocatedStorage ?? 0;
    const haveMultiAZ = pending.MultiAZ ?? instance.MultiAZ ?? false;
    const differences: string[] = [];
    if (haveClass !== w.instanceClass) differences.push(`class is ${haveClass}, spec wants ${w.instanceClass}`);
    if (haveStorage < w.storageGi) differences.push(`storage is ${haveStorage} GiB, spec wants ${w.storageGi}`);
    if (haveMultiAZ !== w.multiAZ) differences.push(`Multi-AZ is ${haveMultiAZ ? 'on' : 'off'}, spec wants ${w.multiAZ ? 'on' : 'off'}`);
    const atProvider = {
      instanceIdentifier: w.id,
      region: w.region,
      status,
      engine: instance.Engine ?? w.engine,
      ...(instance.EngineVersion ? { engineVersion: instance.EngineVersion } : {}),
      instanceClass: instance.DBInstanceClass ?? '',
      allocatedStorageGi: instance.AllocatedStorage ?? 0,
      ...(instance.Endpoint?.Address ? { endpoint: `${instance.Endpoint.Address}:${instance.Endpoint.Port ?? ''}` } : {}),
      ...(instance.DBInstanceArn ? { arn: instance.DBInstanceArn } : {}),
      ...priceStatus(
        rdsMonthlyPrice({
          engine: w.engine,
          region: w.region,
          instanceClass: w.instanceClass,
          allocatedStorageGb: w.storageGi,
          storageType: w.storageType,
          multiAZ: w.multiAZ,
        }),
      ),
    };
    let observation: ExternalObservation;
    if (status === 'available') {
      observation = {
        exists: true,
        upToDate: differences.length === 0,
        ...(differences.length > 0 ? { drift: differences.join('; ') } : {}),
        atProvider,
        connectionDetails: this.connectionDetails(resource, w, instance),
      };
    } else {
      // Not available: no change is asked of RDS until it is (it refuses most while busy).
      const message = PASSING.has(status)
        ? `RDS reports the instance ${status}; polled with backoff until it is available`
        : `RDS reports the instance ${status}: it needs an administrator (see the RDS console's events for ${w.id})`;
      observation = {
        exists: true,
        upToDate: true,
        atProvider,
        notReady: { reason: PASSING.has(status) ? reasonOf(status) : `Instance${reasonOf(status)}`, message },
      };
    }
    this.polls.saw(key, status, observation);
    return observation;
  }

  async create(resource: RDSInstance, options: CallOptions = {}): Promise<ExternalCreation> {
    const w = this.wanted(resource);
    const key = `${w.region}/${w.id.toLowerCase()}`;
    this.polls.forget(key);
    try {
      await this.client(w.region).send(
        new CreateDBInstanceCommand({
          DBInstanceIdentifier: w.id,
          Engine: w.engine,
          ...(w.engineVersion ? { EngineVersion: w.engineVersion } : {}),
          DBInstanceClass: w.instanceClass,
          AllocatedStorage: w.storageGi,
          StorageType: w.storageType,
          StorageEncrypted: true,
          MultiAZ: w.multiAZ,
          PubliclyAccessible: w.publiclyAccessible,
          MasterUsername: w.masterUsername,
          MasterUserPassword: masterPassword(this.credentials.masterPasswordKey, w.region, w.id),
          DBName: w.databaseName,
          ...(w.dbSubnetGroupName ? { DBSubnetGroupName: w.dbSubnetGroupName } : {}),
          ...(w.vpcSecurityGroupIds ? { VpcSecurityGroupIds: w.vpcSecurityGroupIds } : {}),
          CopyTagsToSnapshot: true,
          Tags: [
            { Key: RESOURCE_TAG, Value: this.resourceTag(resource) },
            { Key: 'conductor.io/managed-by', Value: 'conductor' },
          ],
        }),
        { abortSignal: options.signal },
      );
    } catch (err) {
      const code = codeOf(err);
      if (code !== 'DBInstanceAlreadyExists' && code !== 'DBInstanceAlreadyExistsFault') throw awsError(err, `create DB instance ${w.id}`);
      // An earlier, interrupted create of this resource made it: done. Anything else is not ours to take.
      const existing = await this.describe(w, options.signal);
      if (existing && this.madeFor(existing) !== this.resourceTag(resource)) {
        throw new AwsError(
          'AlreadyExists',
          `cannot create DB instance ${w.id}: an instance of that identifier exists and was not made for this resource — import it with the annotation conductor.io/external-name (and managementPolicy ObserveOnly), or set another spec.forProvider.instanceIdentifier`,
          code,
        );
      }
    }
    return { externalName: w.id };
  }

  async update(resource: RDSInstance, options: CallOptions = {}): Promise<ExternalUpdate> {
    const w = this.wanted(resource);
    this.polls.forget(`${w.region}/${w.id.toLowerCase()}`);
    const instance = await this.describe(w, options.signal);
    const haveStorage = instance?.AllocatedStorage ?? 0;
    try {
      await this.client(w.region).send(
        new ModifyDBInstanceCommand({
          DBInstanceIdentifier: w.id,
          DBInstanceClass: w.instanceClass,
          ...(w.storageGi > haveStorage ? { AllocatedStorage: w.storageGi } : {}),
          MultiAZ: w.multiAZ,
          ApplyImmediately: true,
        }),
        { abortSignal: options.signal },
      );
    } catch (err) {
      throw awsError(err, `modify DB instance ${w.id}`);
    }
    return {};
  }

  async delete(resource: RDSInstance, options: CallOptions = {}): Promise<void> {
    const w = this.wanted(resource);
    this.polls.forget(`${w.region}/${w.id.toLowerCase()}`);
    try {
      await this.client(w.region).send(
        new DeleteDBInstanceCommand({
          DBInstanceIdentifier: w.id,
          SkipFinalSnapshot: !w.finalSnapshot,
          ...(w.finalSnapshot ? { FinalDBSnapshotIdentifier: `${w.id}-final` } : {}),
          DeleteAutomatedBackups: true,
        }),
        { abortSignal: options.signal },
      );
    } catch (err) {
      if (isAbort(err)) throw err;
      const code = codeOf(err) ?? '';
      if (MISSING.has(code)) return;
      if (code === 'InvalidDBInstanceState' || code === 'InvalidDBInstanceStateFault') {
        const now = await this.describe(w, options.signal);
        if (!now || now.DBInstanceStatus === 'deleting') return;
        throw awsError(err, `delete DB instance ${w.id} (it is ${now.DBInstanceStatus ?? 'busy'}; retried)`);
      }
      throw awsError(err, `delete DB instance ${w.id}`);
    }
  }
}
