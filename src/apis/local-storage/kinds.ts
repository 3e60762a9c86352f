/**
 * storage.local.conductor.io/v1alpha1 — the `local` provider's storage kinds (DESIGN 3.2,
 * 3.7): S3Server, an S3-compatible server process (s3rver) Conductor runs on this machine
 * and shares between Bucket claims (a bucket per claim), and HostPathPool, a directory an
 * administrator registers and shares between Volume claims (a subdirectory per claim).
 */
import { s } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineConcreteKind } from '../common/concrete.js';
import { V1ALPHA1 } from '../well-known.js';

export const LOCAL_STORAGE_GROUP = 'storage.local.conductor.io';

/** The claim kinds an S3Server implements (CRD annotation conductor.io/implements). */
export const BUCKET_CLAIM_KINDS = ['buckets.storage.conductor.io'];
/** The claim kinds a HostPathPool implements. */
export const VOLUME_CLAIM_KINDS = ['volumes.storage.conductor.io'];

/** The pattern of a directory mode written in octal, e.g. "0750" or "755". */
export const OCTAL_MODE_PATTERN = '^0?[0-7]{3}$';

export const s3ServerKind = defineConcreteKind({
  group: LOCAL_STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'S3Server',
  plural: 's3servers',
  shortNames: ['s3server'],
  description:
    'An S3Server is an S3-compatible server (s3rver) that Conductor runs on its own machine, listening on 127.0.0.1, with its files under the data directory; each bound Bucket claim gets a bucket of its own and a key pair that reaches only that bucket; requests must be signed with AWS Signature V4 (anonymous and presigned requests are refused).',
  implements: BUCKET_CLAIM_KINDS,
  sharingDefault: { mode: 'Shared' },
  fields: {
    port: s
      .integer({ minimum: 1, maximum: 65535 })
      .describe('The port to listen on (127.0.0.1); a free one is chosen and kept when absent.')
      .optional(),
    region: s.string({ minLength: 1 }).withDefault('us-east-1').describe('The region written into claims\' connection details.').optional(),
  },
});
export type S3Server = ObjectOf<typeof s3ServerKind>;

export const hostPathPoolKind = defineConcreteKind({
  group: LOCAL_STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'HostPathPool',
  plural: 'hostpathpools',
  shortNames: ['hostpath'],
  description:
    'A HostPathPool registers an existing directory on Conductor\'s machine that several Volume claims share: each bound claim gets the directory <root>/<namespace>_<name>. Its size is capabilities.capacity.storage; status.atProvider reports the bytes each claim uses.',
  implements: VOLUME_CLAIM_KINDS,
  sharingDefault: { mode: 'Shared' },
  fields: {
    root: s.string({ minLength: 2, pattern: '^/' }).describe('The absolute path of the directory claims\' directories are made in; it must exist.'),
    directoryMode: s
      .string({ pattern: OCTAL_MODE_PATTERN })
      .withDefault('0750')
      .describe('The permissions of each claim\'s directory, in octal.')
      .optional(),
    filesystem: s.string().describe('The filesystem type of the root (e.g. ext4), matched against claims\' spec.filesystem.').optional(),
    usageScanLimit: s
      .integer({ minimum: 1 })
      .withDefault(100000)
      .describe('The most files and directories counted per claim directory when measuring its usage.')
      .optional(),
  },
});
export type HostPathPool = ObjectOf<typeof hostPathPoolKind>;

export const localStorageKinds = [s3ServerKind, hostPathPoolKind] as const;

export const localStorageRefs = {
  s3servers: s3ServerKind.ref,
  hostpathpools: hostPathPoolKind.ref,
} as const;
