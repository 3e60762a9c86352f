/**
 * Test support (never shipped): a fake of the Cloud Storage JSON API v1
 * (storage.googleapis.com/storage/v1), as much as GCSBucket and a client of a Bucket claim
 * use: buckets (insert, get, patch, delete), their IAM policy, and objects (multipart or media
 * upload, list, get, download, delete). No npm package emulates GCS well enough to prefer it.
 * Errors as Google answers them: a bucket name taken → 409 (conflict); deleting a bucket that
 * still holds objects → 409; an unknown location or storage class → 400; a bucket of another
 * project (`foreign`) → 403 on reads; faults injected with `fail`.
 */
import { createHash } from 'node:crypto';
import { FAKE_REGIONS, FakeHttpApi, googleError, json, parsed, type Reply, type SeenRequest } from './fake-gcp-http.js';

export interface FakeBucket {
  body: Record<string, any>;
  objects: Map<string, Buffer>;
  policy: { bindings: { role: string; members: string[] }[] };
  /** A bucket of another project: reads answer 403. */
  foreign?: boolean;
}

/** An object's metadata, with its MD5 (the fake computes no CRC32C: clients validate with md5). */
const objectView = (bucket: string, name: string, data: Buffer) => ({
  kind: 'storage#object',
  bucket,
  name,
  size: String(data.length),
  md5Hash: createHash('md5').update(data).digest('base64'),
});

const CLASSES = new Set(['STANDARD', 'NEARLINE', 'COLDLINE', 'ARCHIVE']);

/** multipartBody is the media part of a multipart/related upload (the last part). */
function multipartMedia(body: string): { meta: Record<string, any>; data: Buffer } {
  const boundary = /^--([^\r\n]+)\r?\n/.exec(body)?.[1];
  if (!boundary) return { meta: {}, data: Buffer.from(body) };
  const parts = body.split(`--${boundary}`).filter((p) => p.trim() !== '' && p.trim() !== '--');
  const content = (p: string) => p.slice(p.search(/\r?\n\r?\n/) + (p.includes('\r\n\r\n') ? 4 : 2)).replace(/\r?\n$/, '');
  return { meta: JSON.parse(content(parts[0])) as Record<string, any>, data: Buffer.from(content(parts[parts.length - 1])) };
}

/** A FakeCloudStorage is a running fake of the Cloud Storage JSON API. */
export class FakeCloudStorage extends FakeHttpApi {
  readonly buckets = new Map<string, FakeBucket>();

  constructor() {
    super((req) => this.serve(req));
  }

  private view(name: string, b: FakeBucket): Record<string, any> {
    return { kind: 'storage#bucket', id: name, name, ...b.body, location: String(b.body.location ?? 'US').toUpperCase() };
  }

  private serve(req: SeenRequest): Reply | undefined {
    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(req.path);
    if (upload) {
      const b = this.buckets.get(upload[1]);
      if (!b) return googleError(404, 'NOT_FOUND', 'The specified bucket does not exist.', 'notFound');
      const { meta, data } = req.query.get('uploadType') === 'multipart' ? multipartMedia(req.body) : { meta: {}, data: Buffer.from(req.body) };
      const name = String(meta.name ?? req.query.get('name') ?? '');
      b.objects.set(name, data);
      return json(objectView(upload[1], name, data));
    }
    const m = /^\/storage\/v1\/b(?:\/([^/]+)(?:\/(iam|o)(?:\/(.+))?)?)?$/.exec(req.path);
    if (!m) return undefined;
    const [, name, sub, object] = m;
    if (!name) {
      if (req.method !== 'POST') return undefined;
      const body = parsed(req);
      if (!FAKE_REGIONS.has(String(body.location ?? '').toLowerCase()))
        return googleError(400, 'INVALID_ARGUMENT', `Invalid location: ${String(body.location)}`, 'invalid');
      if (body.storageClass !== undefined && !CLASSES.has(body.storageClass))
        return googleError(400, 'INVALID_ARGUMENT', `Invalid storage class: ${String(body.storageClass)}`, 'invalid');
      if (this.buckets.has(body.name))
        return googleError(409, 'ALREADY_EXISTS', 'Your previous request to create the named bucket succeeded and you already own it.', 'conflict');
      this.buckets.set(body.name, {
        body: { ...body, projectNumber: '1234', timeCreated: new Date().toISOString() },
        objects: new Map(),
        policy: { bindings: [] },
      });
      return json(this.view(body.name, this.buckets.get(body.name)!));
    }
    const b = this.buckets.get(name);
    if (!b) return googleError(404, 'NOT_FOUND', 'The specified bucket does not exist.', 'notFound');
    if (b.foreign)
      return googleError(
        403,
        'PERMISSION_DENIED',
        'conductor@conductor-test.iam.gserviceaccount.com does not have storage.buckets.get access to the Google Cloud Storage bucket.',
        'forbidden',
      );
    if (!sub) {
      if (req.method === 'GET') return json(this.view(name, b));
      if (req.method === 'PATCH') {
        b.body = { ...b.body, ...parsed(req) };
        return json(this.view(name, b));
      }
      if (req.method === 'DELETE') {
        if (b.objects.size > 0) return googleError(409, 'ALREADY_EXISTS', 'The bucket you tried to delete is not empty.', 'conflict');
        this.buckets.delete(name);
        return { status: 204 };
      }
      return undefined;
    }
    if (sub === 'iam') {
      if (req.method === 'GET') return json({ kind: 'storage#policy', resourceId: `projects/_/buckets/${name}`, version: 1, etag: 'CAE=', ...b.policy });
      if (req.method === 'PUT') {
        const body = parsed(req);
        b.policy = { bindings: (body.bindings ?? []) as FakeBucket['policy']['bindings'] };
        return json({ kind: 'storage#policy', resourceId: `projects/_/buckets/${name}`, version: 1, etag: 'CAE=', ...b.policy });
      }
      return undefined;
    }
    if (!object) {
      if (req.method !== 'GET') return undefined;
      return json({ kind: 'storage#objects', items: [...b.objects.entries()].map(([n, d]) => objectView(name, n, d)) });
    }
    const data = b.objects.get(object);
    if (!data) return googleError(404, 'NOT_FOUND', 'No such object.', 'notFound');
    if (req.method === 'DELETE') {
      b.objects.delete(object);
      return { status: 204 };
    }
    if (req.method === 'GET')
      return req.query.get('alt') === 'media'
        ? { status: 200, raw: data, headers: { 'x-goog-hash': `md5=${createHash('md5').update(data).digest('base64')}` } }
        : json(objectView(name, object, data));
    return undefined;
  }
}

/** startFakeCloudStorage starts the fake on a free port. */
export function startFakeCloudStorage(): Promise<FakeCloudStorage> {
  return new FakeCloudStorage().start();
}
