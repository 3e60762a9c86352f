/**
 * The shapes of the local provider's S3Server kind, as far as this provider reads them, and
 * the facts of the Bucket claim kind it implements. The CRD itself lives in
 * src/apis/local-storage.
 */
import type { KObject } from '../../../machinery/object.js';
import type { GroupKind } from '../../spi.js';
import type { KeyPair } from './sigv4.js';

export const localStorageGroup = 'storage.local.conductor.io';
export const localStorageVersion = 'v1alpha1';

/** The claim kind an S3Server implements. */
export const bucketClaim: GroupKind = { group: 'storage.conductor.io', kind: 'Bucket' };

/** The connection secret keys of a Bucket claim (DESIGN.md 3.1). */
export const bucketSecretKeys = ['endpoint', 'bucket', 'region', 'accessKeyId', 'secretAccessKey'] as const;

/** The region written into connection details when a server names none. */
export const defaultRegion = 'us-east-1';

/**
 * s3rver's only key pair. s3rver knows one account with this fixed key pair; it checks the
 * access key id of every signed request but does not verify SigV4 signatures, and it has no
 * per-bucket permissions. So s3rver is never exposed: the gateway (s3-gateway-main.ts) runs
 * it in process, checks every request's signature against keys.json and each claim's key
 * against its bucket, and only then hands the request to s3rver under this key. Clients
 * never get it; the gateway refuses it.
 */
export const s3rverKeyPair: Readonly<KeyPair> = Object.freeze({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });

/** An S3ServerSpec asks for an s3rver process on this machine. */
export interface S3ServerSpec {
  /** A fixed port; by default a free port is chosen once and kept. */
  port?: number;
  region?: string;
  [field: string]: unknown;
}

/** One claim's binding to a shared resource, as the binder writes it into status.bindings. */
export interface BindingStatus {
  claimRef: { namespace?: string; name: string; uid?: string };
  requests?: Record<string, string | number>;
  secretName?: string;
}

export interface S3Server extends KObject {
  spec: S3ServerSpec;
  status?: { bindings?: BindingStatus[]; atProvider?: Record<string, unknown>; [field: string]: unknown };
}

/** The portable fields of a Bucket claim this provider reads. */
export interface BucketClaimSpec {
  versioning?: boolean;
  publicRead?: boolean;
  requirements?: { capacity?: Record<string, string | number>; region?: string; cost?: string; performance?: string };
  [field: string]: unknown;
}

/** bucketClaimSpec reads a claim's spec as a Bucket spec (an absent spec is empty). */
export function bucketClaimSpec(claim: KObject): BucketClaimSpec {
  const spec = claim.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as BucketClaimSpec) : {};
}

