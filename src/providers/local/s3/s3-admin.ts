/**
 * An S3Admin does the few bucket operations the provider needs — list, create, empty and
 * delete buckets — over S3's REST API with SigV4-signed requests (fetch, no SDK: the AWS
 * SDK is only a dev dependency). Path-style addressing: `<endpoint>/<bucket>/<key>`.
 */
import { encodePath, sha256Hex, signRequest, type KeyPair } from './sigv4.js';

export interface S3AdminOptions {
  /** The server's base URL, e.g. http://127.0.0.1:4568. */
  endpoint: string;
  region: string;
  credentials: KeyPair;
  /** How long one request may take; default 10 s. */
  timeoutMs?: number;
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

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** decodeXmlText turns XML character and entity references back into text. */
export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return entities[ref] ?? whole;
  });
}

/** xmlValues returns the text of every `<tag>…</tag>` element in an XML document, in order. */
export function xmlValues(xml: string, tag: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  for (let m = re.exec(xml); m; m = re.exec(xml)) out.push(decodeXmlText(m[1]!));
  return out;
}

export class S3Admin {
  private readonly base: URL;
  private readonly timeoutMs: number;

  constructor(private readonly options: S3AdminOptions) {
    this.base = new URL(options.endpoint);
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  private async request(method: string, path: string, query: Record<string, string> = {}): Promise<{ status: number; body: string }> {
    const payloadHash = sha256Hex('');
    const headers: Record<string, string> = { host: this.base.host, 'x-amz-content-sha256': payloadHash };
    const signed = signRequest(
      { method, path, query, headers, payloadHash },
      { credentials: this.options.credentials, region: this.options.region, service: 's3', now: new Date() },
    );
    const url = new URL(this.base.toString());
    url.pathname = encodePath(path);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const response = await fetch(url, { method, headers: { ...headers, ...signed }, signal: AbortSignal.timeout(this.timeoutMs) });
    const body = method === 'HEAD' ? '' : await response.text();
    return { status: response.status, body };
  }

  private fail(what: string, response: { status: number; body: string }): never {
    const code = xmlValues(response.body, 'Code')[0] ?? `HTTP${response.status}`;
    const message = xmlValues(response.body, 'Message')[0] ?? '';
    throw new S3Error(response.status, code, `cannot ${what}: ${code} (HTTP ${response.status})${message ? `: ${message}` : ''}`);
  }

  /** listBuckets returns the names of every bucket. */
  async listBuckets(): Promise<string[]> {
    const r = await this.request('GET', '/');
    if (r.status !== 200) this.fail('list buckets', r);
    return xmlValues(r.body, 'Name');
  }

  /** bucketExists says whether the bucket exists. */
  async bucketExists(bucket: string): Promise<boolean> {
    const r = await this.request('HEAD', `/${bucket}`);
    if (r.status === 200) return true;
    if (r.status === 404) return false;
    return this.fail(`look up bucket ${bucket}`, r);
  }

  /** createBucket makes the bucket exist; one that already exists is fine. */
  async createBucket(bucket: string): Promise<void> {
    const r = await this.request('PUT', `/${bucket}`);
    if (r.status === 200) return;
    if (r.status === 409 && xmlValues(r.body, 'Code')[0] === 'BucketAlreadyOwnedByYou') return;
    if (r.status === 409 && (await this.bucketExists(bucket))) return;
    this.fail(`create bucket ${bucket}`, r);
  }

  /** listKeys returns up to `limit` keys of the bucket (all when no limit); none when it is gone. */
  async listKeys(bucket: string, limit = Infinity): Promise<string[]> {
    const keys: string[] = [];
    let marker = '';
    for (;;) {
      const r = await this.request('GET', `/${bucket}`, marker ? { marker } : {});
      if (r.status === 404) return keys;
      if (r.status !== 200) this.fail(`list the objects of bucket ${bucket}`, r);
      const page = xmlValues(r.body, 'Key');
      keys.push(...page);
      const truncated = xmlValues(r.body, 'IsTruncated')[0] === 'true';
      if (!truncated || page.length === 0 || keys.length >= limit) return keys.slice(0, limit);
      marker = xmlValues(r.body, 'NextMarker')[0] ?? page[page.length - 1]!;
    }
  }

  /** deleteObject removes one object; a missing one is fine. */
  async deleteObject(bucket: string, key: string): Promise<void> {
    const r = await this.request('DELETE', `/${bucket}/${key}`);
    if (r.status === 204 || r.status === 200 || r.status === 404) return;
    this.fail(`delete object ${key} of bucket ${bucket}`, r);
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
    const r = await this.request('DELETE', `/${bucket}`);
    if (r.status === 204 || r.status === 200 || r.status === 404) return;
    this.fail(`delete bucket ${bucket}`, r);
  }
}
