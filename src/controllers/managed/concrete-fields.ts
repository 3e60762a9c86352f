/**
 * Reading the fields every concrete resource shares (docs/design.md 3.2) from an object of any
 * concrete kind: the reconciler is generic over kinds, so it reads them defensively rather
 * than trusting a kind's TypeScript type.
 */
import type { ManagementPolicy, SharingMode } from '../../apis/common/concrete.js';
import type { RebindPolicy } from '../../apis/common/fields.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';

/** A ConcreteFields holds the common spec fields the managed reconciler acts on. */
export interface ConcreteFields {
  managementPolicy: ManagementPolicy;
  /**
   * What deleting the resource does to the external resource: Retain leaves it (and its
   * data) in place, Delete and Recycle delete it. Absent or unreadable reads as Retain, the
   * field's default: an unknown policy never destroys data.
   */
  rebindPolicy: RebindPolicy;
  /** The Provider's name (same namespace), when the resource names one. */
  providerName?: string;
  /** The sharing mode of the resource (its spec, else the kind's). */
  sharing: SharingMode;
  /** The Secret the raw connection details go to, in the resource's namespace. */
  connectionSecretName: string;
}

function specOf(resource: KObject): Record<string, unknown> {
  return isPlainObject(resource.spec) ? resource.spec : {};
}

function nameIn(value: unknown): string | undefined {
  return isPlainObject(value) && typeof value.name === 'string' && value.name !== '' ? value.name : undefined;
}

/**
 * connectionSecretNameFor names the Secret a concrete resource's raw connection details
 * are written to: `spec.writeConnectionSecretToRef.name`, by default
 * `<resource name>-connection`.
 */
export function connectionSecretNameFor(resource: KObject): string {
  return nameIn(specOf(resource).writeConnectionSecretToRef) ?? `${resource.metadata.name ?? ''}-connection`;
}

/** concreteFields reads the common fields; `kindSharing` is the kind's own sharing mode. */
export function concreteFields(resource: KObject, kindSharing: SharingMode): ConcreteFields {
  const spec = specOf(resource);
  const mode = isPlainObject(spec.sharing) ? spec.sharing.mode : undefined;
  const providerName = nameIn(spec.providerRef);
  return {
    managementPolicy: spec.managementPolicy === 'ObserveOnly' ? 'ObserveOnly' : 'Full',
    rebindPolicy: spec.rebindPolicy === 'Delete' || spec.rebindPolicy === 'Recycle' ? spec.rebindPolicy : 'Retain',
    ...(providerName ? { providerName } : {}),
    sharing: mode === 'Exclusive' || mode === 'Shared' ? mode : kindSharing,
    connectionSecretName: connectionSecretNameFor(resource),
  };
}
