/**
 * The external client of an S3Bucket: the bucket, by name, in the account the Provider's
 * keys reach. Every call passes CallOptions.signal to the SDK and is idempotent: create
 * treats a bucket this account already owns as done (an earlier, interrupted create made it);
 * delete empties the bucket and removes it, and a gone bucket is fine.
 */
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetBucketVersioningCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  S3Client,
  type BucketLocationConstraint,
} from '@aws-sdk/client-s3';
import type { KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { bucketPolicy, claimDetails, claimKeys, clientConfig } from './aws-clients.js';
import type { AwsCredentials } from './credentials.js';
import { awsError, codeOf, isAbort, statusOf } from './errors.js';
import type { S3Bucket } from './kinds.js';
import type { AwsRegion } from './price-table.js';
import { priceStatus, s3MonthlyPrice } from './prices.js';
import { externalNameOf, forProviderOf, regionOf, sizeOf } from './settings.js';

/** s3ClientFor is an S3 client of `region` (path-style when an endpoint is given: emulators serve no virtual hosts). */
export function s3ClientFor(credentials: AwsCredentials, region: string): S3Client {
  return new S3Client({
    ...clientConfig(credentials, region, 's3'),
    ...(credentials.endpoints.s3 !== undefined ? { forcePathStyle: true } : {}),
    // Checksums only where S3 requires them: S3-compatible servers may know no flexible checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** s3EndpointOf is the S3 endpoint a claim is given: the Secret's s3Endpoint, else the region's. */
export function s3EndpointOf(credentials: AwsCredentials, region: string): string {
  return credentials.endpoints.s3 ?? `https://s3.${region}.amazonaws.com`;
}

const notFound = (err: unknown) => statusOf(err) === 404 || codeOf(err) === 'NotFound' || codeOf(err) === 'NoSuchBucket';

/** An S3BucketClient is the ExternalClient of S3Buckets reached with one Provider's keys. */
export class S3BucketClient implements ExternalClient<S3Bucket> {
  constructor(
    private readonly credentials: AwsCredentials,
    private readonly provider: KObject | undefined,
  ) {}

  private target(resource: S3Bucket): { bucket: string; region: AwsRegion; s3: S3Client } {
    const bucket = externalNameOf(resource, 'bucket', 'bucketName');
    const region = regionOf(resource, this.provider, `bucket ${bucket}`);
    return { bucket, region, s3: s3ClientFor(this.credentials, region) };
  }

  private async connectionDetails(bucket: string, region: string, signal?: AbortSignal): Promise<ConnectionDetails> {
    const keys = await claimKeys(this.credentials, region, { what: `bucket ${bucket}`, policy: bucketPolicy(bucket) }, signal);
    return {
      endpoint: s3EndpointOf(this.credentials, region),
      bucket,
      region,
      accessKeyId: keys.accessKeyId,
      secretAccessKey: keys.secretAccessKey,
      sessionToken: keys.sessionToken,
      credentialsExpireAt: keys.expiresAt,
      bucketArn: `arn:aws:s3:::${bucket}`,
    };
  }

  async observe(resource: S3Bucket, options: CallOptions = {}): Promise<ExternalObservation> {
    const { bucket, region, s3 } = this.target(resource);
    const abortSignal = options.signal;
    try {
      await s3.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal });
    } catch (err) {
      if (notFound(err)) return { exists: false, upToDate: false };
      if (statusOf(err) === 403) throw awsError(err, `read bucket ${bucket} (403: it belongs to another account, or the keys may not read it)`);
      throw awsError(err, `read bucket ${bucket}`);
    }
    const wantVersioning = forProviderOf(resource).versioning === true;
    let versioning = 'Off';
    if (wantVersioning) {
      try {
        versioning = (await s3.send(new GetBucketVersioningCommand({ Bucket: bucket }), { abortSignal })).Status ?? 'Off';
      } catch (err) {
        throw awsError(err, `read the versioning of bucket ${bucket}`);
      }
    }
    const drift = wantVersioning && versioning !== 'Enabled' ? `versioning is ${versioning}, spec wants Enabled` : undefined;
    return {
      exists: true,
      upToDate: drift === undefined,
      ...(drift ? { drift } : {}),
      atProvider: {
        bucketName: bucket,
        region,
        arn: `arn:aws:s3:::${bucket}`,
        ...(wantVersioning ? { versioning } : {}),
        ...priceStatus(s3MonthlyPrice(region, sizeOf(resource))),
      },
      ...(await claimDetails(() => this.connectionDetails(bucket, region, options.signal))),
    };
  }

  async create(resource: S3Bucket, options: CallOptions = {}): Promise<ExternalCreation> {
    const { bucket, region, s3 } = this.target(resource);
    const abortSignal = options.signal;
    try {
      await s3.send(
        new CreateBucketCommand({
          Bucket: bucket,
          // us-east-1 takes no location constraint; every other region needs its own.
          ...(region !== 'us-east-1' ? { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } } : {}),
        }),
        { abortSignal },
      );
    } catch (err) {
      // Made by an earlier, interrupted create (or imported): observe and update take it from here.
      if (codeOf(err) !== 'BucketAlreadyOwnedByYou') {
        if (codeOf(err) !== 'BucketAlreadyExists') throw awsError(err, `create bucket ${bucket}`);
        // S3 says BucketAlreadyExists for another account's bucket (and S3-compatible servers for any):
        // one these keys can read is this account's own; anything else is taken.
        if (!(await this.reachable(s3, bucket, abortSignal))) {
          throw awsError(err, `create bucket ${bucket}: the name is taken by another AWS account — bucket names are global; set spec.forProvider.bucketName`);
        }
      }
    }
    if (forProviderOf(resource).versioning === true) await this.enableVersioning(s3, bucket, abortSignal);
    return { externalName: bucket };
  }

  /** reachable tells whether HeadBucket of `bucket` succeeds with these keys. */
  private async reachable(s3: S3Client, bucket: string, abortSignal?: AbortSignal): Promise<boolean> {
    try {
      await s3.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal });
      return true;
    } catch (err) {
      if (isAbort(err)) throw err;
      return false;
    }
  }

  private async enableVersioning(s3: S3Client, bucket: string, abortSignal?: AbortSignal): Promise<void> {
    try {
      await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }), { abortSignal });
    } catch (err) {
      throw awsError(err, `turn on versioning of bucket ${bucket}`);
    }
  }

  async update(resource: S3Bucket, options: CallOptions = {}): Promise<ExternalUpdate> {
    const { bucket, s3 } = this.target(resource);
    if (forProviderOf(resource).versioning === true) await this.enableVersioning(s3, bucket, options.signal);
    return {};
  }

  async delete(resource: S3Bucket, options: CallOptions = {}): Promise<void> {
    const { bucket, s3 } = this.target(resource);
    const abortSignal = options.signal;
    try {
      await this.empty(s3, bucket, forProviderOf(resource).versioning === true, abortSignal);
      await s3.send(new DeleteBucketCommand({ Bucket: bucket }), { abortSignal });
    } catch (err) {
      if (isAbort(err)) throw err;
      if (notFound(err)) return;
      throw awsError(err, `delete bucket ${bucket}`);
    }
  }

  /** empty removes every object (and, for a versioned bucket, every version and delete marker), a few at a time. */
  private async empty(s3: S3Client, bucket: string, versioned: boolean, abortSignal?: AbortSignal): Promise<void> {
    for (;;) {
      let targets: { Key: string; VersionId?: string }[];
      if (versioned) {
        const out = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys: 1000 }), { abortSignal });
        targets = [...(out.Versions ?? []), ...(out.DeleteMarkers ?? [])]
          .filter((v) => v.Key !== undefined)
          .map((v) => ({ Key: v.Key!, ...(v.VersionId ? { VersionId: v.VersionId } : {}) }));
      } else {
        const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1000 }), { abortSignal });
        targets = (out.Contents ?? []).filter((o) => o.Key !== undefined).map((o) => ({ Key: o.Key! }));
      }
      if (targets.length === 0) return;
      for (let i = 0; i < targets.length; i += 8) {
        await Promise.all(targets.slice(i, i + 8).map((t) => s3.send(new DeleteObjectCommand({ Bucket: bucket, ...t }), { abortSignal })));
      }
    }
  }
}
