/**
 * storage.local.conductor.io/v1alpha1 — the `local` provider's HostPathPool kind (docs/design.md 3.2,
 * 3.7), defined once: CRD, ResourceRef and TypeScript type. A HostPathPool is a directory an
 * administrator registers and shares between Volume claims (a subdirectory per claim). Also
 * the facts of the Volume claim kind it implements.
 */
import type { KObject } from '../../../machinery/object.js';
import { s } from '../../../apis/schema/builder.js';
import type { ObjectOf } from '../../../apis/schema/kind.js';
import { VOLUME_CONNECTION_KEYS, volumeKind, type Volume } from '../../../apis/storage/kinds.js';
import { V1ALPHA1 } from '../../../apis/well-known.js';
import type { GroupKind } from '../../spi.js';
import { defineProviderKind } from '../../kind-definition.js';
import { LOCAL_STORAGE_GROUP } from '../groups.js';

/** The claim kind a HostPathPool implements. */
export const volumeClaim: GroupKind = { group: volumeKind.group, kind: volumeKind.kind };

/** The connection secret keys of a Volume claim: exactly the claim kind's. */
export const volumeSecretKeys = VOLUME_CONNECTION_KEYS;

/** The pattern of a directory mode written in octal, e.g. "0750" or "755". */
export const OCTAL_MODE_PATTERN = '^0?[0-7]{3}$';

export const hostPathPoolKind = defineProviderKind({
  group: LOCAL_STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'HostPathPool',
  plural: 'hostpathpools',
  shortNames: ['hostpath'],
  description:
    "A HostPathPool registers an existing directory on Conductor's machine that several Volume claims share: each bound claim gets the directory <root>/<namespace>_<name>. Its size is capabilities.capacity.storage; status.atProvider reports the bytes each claim uses.",
  sharing: 'Shared',
  lifecycle: 'Registered',
  implements: [{ claim: volumeKind, portableKeys: VOLUME_CONNECTION_KEYS, connectionSecretKeys: volumeSecretKeys }],
  fields: {
    root: s.string({ minLength: 2, pattern: '^/' }).describe("The absolute path of the directory claims' directories are made in; it must exist."),
    directoryMode: s.string({ pattern: OCTAL_MODE_PATTERN }).withDefault('0750').describe("The permissions of each claim's directory, in octal.").optional(),
    filesystem: s.string().describe("The filesystem type of the root (e.g. ext4), matched against claims' spec.filesystem.").optional(),
    usageScanLimit: s
      .integer({ minimum: 1 })
      .withDefault(100000)
      .describe('The most files and directories counted per claim directory when measuring its usage.')
      .optional(),
  },
});
export type HostPathPool = ObjectOf<typeof hostPathPoolKind>;

/** The HostPathPool kind's ResourceRef, by plural. */
export const hostPathRefs = { hostpathpools: hostPathPoolKind.ref } as const;

/** The `server` of a host path volume: the directory is on Conductor's own machine. */
export const localServer = 'localhost';

export const defaultDirectoryMode = 0o750;
export const defaultUsageScanLimit = 100_000;

/** The portable fields of a Volume claim (an absent spec reads as empty). */
export type VolumeClaimSpec = Partial<Volume['spec']>;

/** volumeClaimSpec reads a claim's spec as a Volume spec (an absent spec is empty). */
export function volumeClaimSpec(claim: KObject): VolumeClaimSpec {
  const spec = claim.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? spec : {};
}

/** parseMode reads an octal directory mode ("0750", "755"); undefined gives the default. */
export function parseMode(text: string | undefined): number {
  if (text === undefined || text === '') return defaultDirectoryMode;
  if (!new RegExp(OCTAL_MODE_PATTERN).test(text)) throw new Error(`directoryMode "${text}" is not valid: want three octal digits, e.g. "0750"`);
  return parseInt(text, 8);
}
