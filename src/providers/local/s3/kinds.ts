/**
 * storage.local.conductor.io/v1alpha1 — the `local` provider's S3Server kind (docs/design.md 3.2,
 * 3.7), defined once: CRD, ResourceRef and TypeScript type. An S3Server is an S3-compatible
 * server process (s3rver behind Conductor's SigV4 gateway) on this machine, shared between
 * Bucket claims (a bucket per claim). Also the facts of the Bucket claim kind it implements.
 */
import type { KObject } from '../../../machinery/object.js';
import { s } from '../../../apis/schema/builder.js';
import type { ObjectOf } from '../../../apis/schema/kind.js';
import { BUCKET_CONNECTION_KEYS, bucketKind, type Bucket } from '../../../apis/storage/kinds.js';
import { V1ALPHA1 } from '../../../apis/well-known.js';
import type { GroupKind } from '../../spi.js';
import { defineProviderKind } from '../../kind-definition.js';
import type { KeyPair } from './sigv4.js';

export { LOCAL_STORAGE_GROUP } from '../groups.js';
import { LOCAL_STORAGE_GROUP } from '../groups.js';

/** The claim kind an S3Server implements. */
export const bucketClaim: GroupKind = { group: bucketKind.group, kind: bucketKind.kind };

/** The connection secret keys of a Bucket claim: exactly the claim kind's. */
export const bucketSecretKeys = BUCKET_CONNECTION_KEYS;

export const s3ServerKind = defineProviderKind({
  group: LOCAL_STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'S3Server',
  plural: 's3servers',
  shortNames: ['s3server'],
  description:
    'An S3Server is an S3-compatible server (s3rver) that Conductor runs on its own machine, listening on 127.0.0.1, with its files under the data directory; each bound Bucket claim gets a bucket of its own and a key pair that reaches only that bucket; requests must be signed with AWS Signature V4 (anonymous and presigned requests are refused).',
  sharing: 'Shared',
  lifecycle: 'Managed',
  implements: [{ claim: bucketKind, portableKeys: BUCKET_CONNECTION_KEYS, connectionSecretKeys: bucketSecretKeys }],
  fields: {
    port: s.integer({ minimum: 1, maximum: 65535 }).describe('The port to listen on (127.0.0.1); a free one is chosen and kept when absent.').optional(),
    region: s.string({ minLength: 1 }).withDefault('us-east-1').describe("The region written into claims' connection details.").optional(),
  },
});
export type S3Server = ObjectOf<typeof s3ServerKind>;

/** The S3Server kind's ResourceRef, by plural. */
export const s3Refs = { s3servers: s3ServerKind.ref } as const;

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

/** The portable fields of a Bucket claim (an absent spec reads as empty). */
export type BucketClaimSpec = Partial<Bucket['spec']>;

/** bucketClaimSpec reads a claim's spec as a Bucket spec (an absent spec is empty). */
export function bucketClaimSpec(claim: KObject): BucketClaimSpec {
  const spec = claim.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? spec : {};
}
