/**
 * The shapes of the local provider's HostPathPool kind, as far as this provider reads them,
 * and the facts of the Volume claim kind it implements. The CRD lives in src/apis/local-storage.
 */
import type { KObject } from '../../../machinery/object.js';
import type { GroupKind } from '../../spi.js';

export const localStorageGroup = 'storage.local.conductor.io';
export const localStorageVersion = 'v1alpha1';

/** The claim kind a HostPathPool implements. */
export const volumeClaim: GroupKind = { group: 'storage.conductor.io', kind: 'Volume' };

/** The connection secret keys of a Volume claim (DESIGN.md 3.1). */
export const volumeSecretKeys = ['path', 'server', 'export'] as const;

/** The `server` of a host path volume: the directory is on Conductor's own machine. */
export const localServer = 'localhost';

export const defaultDirectoryMode = 0o750;
export const defaultUsageScanLimit = 100_000;

/** A HostPathPoolSpec registers a directory shared by Volume claims. */
export interface HostPathPoolSpec {
  root: string;
  /** Octal, e.g. "0750". */
  directoryMode?: string;
  filesystem?: string;
  usageScanLimit?: number;
  [field: string]: unknown;
}

export interface HostPathPool extends KObject {
  spec: HostPathPoolSpec;
  status?: { bindings?: { claimRef: { namespace?: string; name: string; uid?: string }; requests?: Record<string, string | number> }[]; [field: string]: unknown };
}

/** The portable fields of a Volume claim this provider reads. */
export interface VolumeClaimSpec {
  accessMode?: 'ReadWriteOnce' | 'ReadWriteMany';
  filesystem?: string;
  [field: string]: unknown;
}

/** volumeClaimSpec reads a claim's spec as a Volume spec (an absent spec is empty). */
export function volumeClaimSpec(claim: KObject): VolumeClaimSpec {
  const spec = claim.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as VolumeClaimSpec) : {};
}

/** parseMode reads an octal directory mode ("0750", "755"); undefined gives the default. */
export function parseMode(text: string | undefined): number {
  if (text === undefined || text === '') return defaultDirectoryMode;
  if (!/^0?[0-7]{3}$/.test(text)) throw new Error(`directoryMode "${text}" is not valid: want three octal digits, e.g. "0750"`);
  return parseInt(text, 8);
}
