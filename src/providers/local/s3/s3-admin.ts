/**
 * An S3Admin does the few bucket operations the provider needs — list, create, empty and
 * delete buckets — with the AWS SDK (`@aws-sdk/client-s3`: SigV4 signing, XML, errors).
 * Path-style addressing: `<endpoint>/<bucket>/<key>`. The SDK loads with the first request, not
 * with the local provider: a Conductor that serves no bucket never loads it.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { Agent } from 'node:http';
import { abortReason } from '../../../machinery/abort.js';
import { lazyModule } from '../../lazy-module.js';
import type { KeyPair } from './sigv4.js';

/** The S3 SDK, loaded by the first request. */
const s3Sdk = lazyModule(() => import('@aws-sdk/client-s3'));
type S3Sdk = Awaited<ReturnType<typeof s3Sdk>>;

export interface S3AdminOptions {
  /** The server's base URL, e.g. http://127.0.0.1:4568. */
  endpoint: string;
  region: string;
  credentials: KeyPair;
  /** How long one request may take; default 10 s. */
  timeoutMs?: number;
  /** The signal of the provider call this admin serves: its abort ends every request. */
  signal?: AbortSignal;
}

/** An S3Error is an S3 error response: its HTTP status and S3 error code. */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'S3Error';
  }
}

/**
 * An S3Admin is bound to one call: every request it sends ends when the call's `signal`
 * aborts (the SDK's `abortSignal`: the request is destroyed), and then rejects with the
 * signal's reason; each request also has its own timeout.
 */
export class S3Admin {
  private readonly options: S3AdminOptions;
  private client: S3Client | undefined;
  private readonly timeoutMs: number;
  private readonly signal: AbortSignal | undefined;

  constructor(options: S3AdminOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.signal = options.signal;
    this.options = options;
  }

  /**
   * send runs one command with the per-request timeout and the call's signal, turning S3
   * error responses into S3Errors and an abort of the call into the signal's reason.
   */
  private async send<T>(what: string, run: (s3: S3Sdk, client: S3Client, abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    const sdk = await s3Sdk();
    const timeout = AbortSignal.timeout(this.timeoutMs);
    try {
      this.signal?.throwIfAborted();
      return await run(sdk, this.clientOf(sdk), this.signal ? AbortSignal.any([this.signal, timeout]) : timeout);
    } catch (err) {
      if (this.signal?.aborted) throw abortReason(this.signal);
      if (err instanceof sdk.S3ServiceException) {
        const status = err.$metadata.httpStatusCode ?? 0;
        const message = err.message && err.message !== err.name && err.message !== 'UnknownError' ? `: ${err.message}` : '';
        throw new S3Error(status, err.name, `cannot ${what}: ${err.name} (HTTP ${status})${message}`);
      }
      throw err;
    }
  }

  private clientOf(sdk: S3Sdk): S3Client {
    this.client ??= new sdk.S3Client({
      endpoint: this.options.endpoint,
      region: this.options.region,
      credentials: { accessKeyId: this.options.credentials.accessKeyId, secretAccessKey: this.options.credentials.secretAccessKey },
      forcePathStyle: true,
      // No idle keep-alive sockets: an S3Admin is made per use and simply dropped.
      requestHandler: { httpAgent: new Agent({ keepAlive: false }) },
      // One attempt per call, as before: the controller that calls retries with its own backoff.
      maxAttempts: 1,
      // Checksums only where S3 requires them: the local gateway (s3rver) knows no flexible checksums.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    return this.client;
  }

  /** listBuckets returns the names of every bucket. */
  async listBuckets(): Promise<string[]> {
    const out = await this.send('list buckets', (s3, client, abortSignal) => client.send(new s3.ListBucketsCommand({}), { abortSignal }));
    return (out.Buckets ?? []).map((b) => b.Name ?? '').filter((n) => n !== '');
  }

  /** bucketExists says whether the bucket exists. */
  async bucketExists(bucket: string): Promise<boolean> {
    try {
      await this.send(`look up bucket ${bucket}`, (s3, client, abortSignal) => client.send(new s3.HeadBucketCommand({ Bucket: bucket }), { abortSignal }));
      return true;
    } catch (err) {
      if (err instanceof S3Error && err.status === 404) return false;
      throw err;
    }
  }

  /** createBucket makes the bucket exist; one that already exists is fine. */
  async createBucket(bucket: string): Promise<void> {
    try {
      await this.send(`create bucket ${bucket}`, (s3, client, abortSignal) => client.send(new s3.CreateBucketCommand({ Bucket: bucket }), { abortSignal }));
    } catch (err) {
      if (!(err instanceof S3Error) || err.status !== 409) throw err;
      if (err.code === 'BucketAlreadyOwnedByYou' || (await this.bucketExists(bucket))) return;
      throw err;
    }
  }

  /** listKeys returns up to `limit` keys of the bucket (all when no limit); none when it is gone. */
  async listKeys(bucket: string, limit = Infinity): Promise<string[]> {
    const keys: string[] = [];
    let marker: string | undefined;
    for (;;) {
      let page;
      try {
        page = await this.send(`list the objects of bucket ${bucket}`, (s3, client, abortSignal) =>
          client.send(new s3.ListObjectsCommand({ Bucket: bucket, ...(marker ? { Marker: marker } : {}) }), { abortSignal }),
        );
      } catch (err) {
        if (err instanceof S3Error && err.status === 404) return keys;
        throw err;
      }
      const names = (page.Contents ?? []).map((o) => o.Key ?? '').filter((k) => k !== '');
      keys.push(...names);
      if (!page.IsTruncated || names.length === 0 || keys.length >= limit) return keys.slice(0, limit);
      marker = page.NextMarker ?? names[names.length - 1];
    }
  }

  /** deleteObject removes one object; a missing one is fine. */
  async deleteObject(bucket: string, key: string): Promise<void> {
    try {
      await this.send(`delete object ${key} of bucket ${bucket}`, (s3, client, abortSignal) =>
        client.send(new s3.DeleteObjectCommand({ Bucket: bucket, Key: key }), { abortSignal }),
      );
    } catch (err) {
      if (err instanceof S3Error && err.status === 404) return;
      throw err;
    }
  }

  /** emptyBucket removes every object of the bucket (a few at a time) and keeps the bucket. */
  async emptyBucket(bucket: string): Promise<number> {
    let removed = 0;
    for (;;) {
      const keys = await this.listKeys(bucket, 1000);
      if (keys.length === 0) return removed;
      for (let i = 0; i < keys.length; i += 8) {
        await Promise.all(keys.slice(i, i + 8).map((k) => this.deleteObject(bucket, k)));
      }
      removed += keys.length;
    }
  }

  /** deleteBucket empties and removes the bucket; a missing one is fine. */
  async deleteBucket(bucket: string): Promise<void> {
    await this.emptyBucket(bucket);
    try {
      await this.send(`delete bucket ${bucket}`, (s3, client, abortSignal) => client.send(new s3.DeleteBucketCommand({ Bucket: bucket }), { abortSignal }));
    } catch (err) {
      if (err instanceof S3Error && err.status === 404) return;
      throw err;
    }
  }
}
