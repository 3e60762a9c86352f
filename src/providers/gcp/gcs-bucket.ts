/**
 * The external client of a GCSBucket: a Cloud Storage bucket, by name, in one region of the
 * project the Provider's credentials reach (Cloud Storage JSON API through
 * @google-cloud/storage). Bucket names are global, so:
 * - create inserts the bucket labelled `conductor-io-owner: <hash of the resource>` with
 *   uniform bucket-level access, public access prevention enforced unless publicRead (then
 *   allUsers gets roles/storage.objectViewer); 409 of a bucket with this resource's label is an
 *   earlier, interrupted create (done); any other (another resource's, another project's) is
 *   refused with what to do;
 * - observe reads it (missing → absent; 403: it belongs to someone else, said so); a bucket made
 *   for this resource with another versioning, storage class or public access is out of date and
 *   update patches it;
 * - delete deletes it; one still holding objects is kept (a clear error) unless forceDestroy,
 *   then its objects go first; a gone one is done.
 */
import type { Bucket, Storage } from '@google-cloud/storage';
import type { KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import type { GcpCredentials } from './credentials.js';
import { bounded, GcpError, gcpError, GRPC, grpcCodeOf } from './errors.js';
import type { GCSBucket } from './kinds.js';
import { GCS_PRICES } from './price-table.js';
import { gcsMonthlyPrice, priceStatus } from './prices.js';
import { storageOf } from './rest-clients.js';
import { sizeOf } from './settings.js';
import { bucketSettings, type BucketSettings } from './kind-settings.js';

const CALL_MS = 60_000;
export const OWNER_LABEL = 'conductor-io-owner';
const PUBLIC_READER = { role: 'roles/storage.objectViewer', members: ['allUsers'] };

interface BucketMetadata {
  location?: string;
  storageClass?: string;
  versioning?: { enabled?: boolean };
  labels?: Record<string, string>;
  iamConfiguration?: { publicAccessPrevention?: string };
}

/** A GcsBucketClient is the ExternalClient of GCSBuckets of one project. */
export class GcsBucketClient implements ExternalClient<GCSBucket> {
  private readonly storage: Storage;

  constructor(
    private readonly credentials: GcpCredentials,
    private readonly provider: KObject | undefined,
  ) {
    this.storage = storageOf(credentials);
  }

  private settings(resource: KObject): BucketSettings {
    return bucketSettings(resource, this.provider, this.credentials.projectId);
  }

  private bucket(s: BucketSettings): Bucket {
    return this.storage.bucket(s.name);
  }

  private async metadata(s: BucketSettings, signal?: AbortSignal): Promise<BucketMetadata | undefined> {
    try {
      const [metadata] = await bounded(this.bucket(s).getMetadata(), CALL_MS, signal);
      return metadata as BucketMetadata;
    } catch (err) {
      const code = grpcCodeOf(err);
      if (code === GRPC.NOT_FOUND) return undefined;
      if (code === GRPC.PERMISSION_DENIED) {
        throw new GcpError(
          'Forbidden',
          `cannot read bucket ${s.name}: it exists and this Provider's key may not read it (bucket names are global: it may be another project's) — set another spec.forProvider.bucketName, or grant the service account storage.buckets.get on it`,
          code,
        );
      }
      throw gcpError(err, `read bucket ${s.name}`);
    }
  }

  /** connectionDetails are a Bucket claim's keys: the S3-compatible endpoint, the HMAC key of the Provider's Secret when it has one. */
  connectionDetails(s: BucketSettings): ConnectionDetails {
    const e = this.credentials.storage;
    const host = e.host.includes(':') ? `[${e.host}]` : e.host;
    const endpoint = `${e.emulator ? 'http' : 'https'}://${host}${e.port === (e.emulator ? 80 : 443) ? '' : `:${e.port}`}`;
    return {
      endpoint,
      bucket: s.name,
      region: s.region,
      accessKeyId: this.credentials.hmac?.accessId ?? '',
      secretAccessKey: this.credentials.hmac?.secret ?? '',
      projectId: this.credentials.projectId,
      storageEndpoint: endpoint,
      emulated: String(e.emulator),
      credentials: this.credentials.applicationCredentials ?? '',
    };
  }

  async observe(resource: GCSBucket, options: CallOptions = {}): Promise<ExternalObservation> {
    const s = this.settings(resource);
    const m = await this.metadata(s, options.signal);
    if (!m) return { exists: false, upToDate: false };
    const drift: string[] = [];
    const ours = m.labels?.[OWNER_LABEL] === s.owner;
    if (ours) {
      if ((m.versioning?.enabled ?? false) !== s.versioning)
        drift.push(`versioning is ${m.versioning?.enabled ? 'on' : 'off'}, spec wants ${s.versioning ? 'on' : 'off'}`);
      if ((m.storageClass ?? 'STANDARD') !== s.storageClass) drift.push(`storage class is ${m.storageClass ?? 'STANDARD'}, spec wants ${s.storageClass}`);
      const prevention = m.iamConfiguration?.publicAccessPrevention ?? 'inherited';
      if ((prevention !== 'enforced') !== s.publicRead)
        drift.push(`public read is ${prevention === 'enforced' ? 'off' : 'possible'}, spec wants ${s.publicRead ? 'on' : 'off'}`);
    }
    const location = (m.location ?? s.region).toLowerCase();
    return {
      exists: true,
      upToDate: drift.length === 0,
      ...(drift.length > 0 ? { drift: drift.join('; ') } : {}),
      atProvider: {
        bucket: s.name,
        location,
        storageClass: m.storageClass ?? 'STANDARD',
        ...priceStatus(gcsMonthlyPrice(GCS_PRICES, s.region, s.storageClass, sizeOf(resource))),
      },
      connectionDetails: { ...this.connectionDetails(s), region: location },
    };
  }

  private async applyPublicRead(s: BucketSettings, signal?: AbortSignal): Promise<void> {
    if (!s.publicRead) return;
    try {
      const [policy] = await bounded(this.bucket(s).iam.getPolicy(), CALL_MS, signal);
      const bindings = (policy.bindings ?? []).filter((b) => !(b.role === PUBLIC_READER.role && (b.members ?? []).includes('allUsers')));
      await bounded(this.bucket(s).iam.setPolicy({ ...policy, bindings: [...bindings, PUBLIC_READER] }), CALL_MS, signal);
    } catch (err) {
      throw gcpError(err, `let allUsers read bucket ${s.name}`);
    }
  }

  async create(resource: GCSBucket, options: CallOptions = {}): Promise<ExternalCreation> {
    const s = this.settings(resource);
    try {
      await bounded(
        this.storage.createBucket(s.name, {
          location: s.region.toUpperCase(),
          storageClass: s.storageClass,
          versioning: { enabled: s.versioning },
          iamConfiguration: { uniformBucketLevelAccess: { enabled: true }, publicAccessPrevention: s.publicRead ? 'inherited' : 'enforced' },
          labels: { [OWNER_LABEL]: s.owner, 'managed-by': 'conductor' },
        }),
        CALL_MS,
        options.signal,
      );
    } catch (err) {
      if (grpcCodeOf(err) !== GRPC.ALREADY_EXISTS) throw gcpError(err, `create bucket ${s.name} (${s.region}, ${s.storageClass})`);
      const existing = await this.metadata(s, options.signal);
      if (existing && existing.labels?.[OWNER_LABEL] !== s.owner) {
        throw new GcpError(
          'AlreadyExists',
          `cannot create bucket ${s.name}: a bucket of that name exists and was not made for this resource (bucket names are global) — import it with the annotation conductor.io/external-name (and managementPolicy ObserveOnly), or set another spec.forProvider.bucketName`,
          GRPC.ALREADY_EXISTS,
        );
      }
    }
    await this.applyPublicRead(s, options.signal);
    return { externalName: s.name, connectionDetails: this.connectionDetails(s) };
  }

  async update(resource: GCSBucket, options: CallOptions = {}): Promise<ExternalUpdate> {
    const s = this.settings(resource);
    try {
      await bounded(
        this.bucket(s).setMetadata({
          versioning: { enabled: s.versioning },
          storageClass: s.storageClass,
          iamConfiguration: { publicAccessPrevention: s.publicRead ? 'inherited' : 'enforced' },
        }),
        CALL_MS,
        options.signal,
      );
    } catch (err) {
      throw gcpError(err, `change bucket ${s.name}`);
    }
    await this.applyPublicRead(s, options.signal);
    return { connectionDetails: this.connectionDetails(s) };
  }

  async delete(resource: GCSBucket, options: CallOptions = {}): Promise<void> {
    const s = this.settings(resource);
    try {
      if (s.forceDestroy) await bounded(this.bucket(s).deleteFiles({ force: true, versions: true }), CALL_MS, options.signal);
      await bounded(this.bucket(s).delete(), CALL_MS, options.signal);
    } catch (err) {
      const code = grpcCodeOf(err);
      if (code === GRPC.NOT_FOUND) return;
      if (code === GRPC.ALREADY_EXISTS) {
        throw new GcpError(
          'FailedPrecondition',
          `cannot delete bucket ${s.name}: it still holds objects — empty it, or set spec.forProvider.forceDestroy to delete them with it`,
          code,
        );
      }
      throw gcpError(err, `delete bucket ${s.name}`);
    }
  }
}
