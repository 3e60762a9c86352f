/**
 * The objects a KubernetesObject writes in the target, read and checked: the manifest, and
 * an operator bundle's manifests. Server-owned metadata and status are dropped; what cannot
 * name an object (apiVersion, kind, name, namespace) is refused with the field named.
 */
import { deepCopy, isPlainObject, type JsonObject } from '../../machinery/object.js';
import { isDnsLabel } from './placeholders.js';
import type { ObjectKey } from './target-client.js';

/** Metadata the server owns: never applied, never compared. */
const SERVER_METADATA = [
  'resourceVersion',
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'managedFields',
  'selfLink',
];

/** An apiVersion: `<version>` or `<group>/<version>`, the group a DNS subdomain, the version a DNS label (`v1`, `apps/v1`, `example.com/v1alpha1`). */
const API_VERSION = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;

/** isPathSegment tells whether a name can stand as one segment of an API path (any kind's name rules aside). */
function isPathSegment(name: string): boolean {
  return name.length <= 253 && name !== '.' && name !== '..' && !/[/%\s\\]/.test(name) && [...name].every((ch) => ch.charCodeAt(0) >= 0x20);
}

/** A ManifestError says what a KubernetesObject's manifest lacks. */
export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/** A Desired is a resource's manifest read as the key of the object it names and the body to apply. */
export interface Desired {
  key: ObjectKey;
  manifest: JsonObject;
}

/**
 * checkedManifest reads an object to write in the target (`field` names it in errors): a copy
 * without server-owned metadata and status, and its key. It throws a ManifestError naming what
 * is missing or malformed.
 */
export function checkedManifest(raw: unknown, field: string): Desired {
  if (!isPlainObject(raw)) throw new ManifestError(`${field} is missing: want the object to keep in the target (apiVersion, kind, metadata.name)`);
  const manifest = deepCopy(raw) as JsonObject;
  const apiVersion = manifest.apiVersion;
  const kind = manifest.kind;
  const metadata = isPlainObject(manifest.metadata) ? manifest.metadata : undefined;
  const name = metadata?.name;
  if (typeof apiVersion !== 'string' || apiVersion === '') throw new ManifestError(`${field}.apiVersion is missing: want e.g. v1 or apps/v1`);
  if (typeof kind !== 'string' || kind === '') throw new ManifestError(`${field}.kind is missing: want e.g. ConfigMap`);
  if (!metadata || typeof name !== 'string' || name === '')
    throw new ManifestError(`${field}.metadata.name is missing: want the name of the object in the target`);
  if (!API_VERSION.test(apiVersion))
    throw new ManifestError(`${field}.apiVersion ${JSON.stringify(apiVersion)} is not group/version or version: want e.g. v1 or apps/v1`);
  if (!KIND.test(kind)) throw new ManifestError(`${field}.kind ${JSON.stringify(kind)} is not a kind name: want e.g. ConfigMap`);
  if (!isPathSegment(name))
    throw new ManifestError(
      `${field}.metadata.name ${JSON.stringify(name)} cannot name an object: want e.g. a DNS-1123 name, never "." or ".." or one with "/" or "%"`,
    );
  const namespace = metadata.namespace;
  if (namespace !== undefined && (typeof namespace !== 'string' || namespace === '')) {
    throw new ManifestError(`${field}.metadata.namespace is not a non-empty string: want a namespace, or leave it out`);
  }
  if (typeof namespace === 'string' && !isDnsLabel(namespace)) {
    throw new ManifestError(`${field}.metadata.namespace ${JSON.stringify(namespace)} is not a namespace name: want a DNS-1123 label`);
  }
  for (const f of SERVER_METADATA) delete metadata[f];
  delete manifest.status;
  return { key: { apiVersion, kind, name, ...(typeof namespace === 'string' ? { namespace } : {}) }, manifest };
}
