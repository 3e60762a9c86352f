/**
 * Where a local server kind keeps one resource's files: a directory per resource under the
 * kind's root, named from the resource's namespace and name.
 */
import { createHash } from 'node:crypto';

const hashLength = 8;
/** Keep directory names well under the usual 255-byte limit of a file name. */
const maxDirectoryNameLength = 120;

/**
 * instanceDirectoryName is the directory of a dedicated instance under the provider's data
 * directory: `<namespace>_<name>`. Kubernetes names contain no `_`, so the separator keeps
 * the mapping one-to-one (`a-b` + `c` and `a` + `b-c` stay apart); anything unexpected is
 * replaced, and very long names are cut and completed with a hash.
 */
export function instanceDirectoryName(namespace: string, name: string): string {
  const plain = `${namespace}_${name}`;
  const safe = plain.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^\.+/, '-');
  if (safe === plain && safe.length <= maxDirectoryNameLength) return safe;
  const hash = createHash('sha256').update(plain).digest('hex').slice(0, hashLength);
  return `${safe.slice(0, maxDirectoryNameLength - hashLength - 1)}-${hash}`;
}

/** A NamedResource is what the helpers below read of a resource: its namespace and name. */
export interface NamedResource {
  metadata: { namespace?: string; name?: string };
}

/**
 * resourceIdentity returns the namespace and name that place a resource's directory; it
 * throws when either is missing, saying the `kind` and what they place (`its data`).
 */
export function resourceIdentity(kind: string, resource: NamedResource, places = 'its data'): { namespace: string; name: string } {
  const { namespace, name } = resource.metadata;
  if (!namespace || !name) throw new Error(`${kind} lacks metadata.namespace or metadata.name: want both to place ${places}`);
  return { namespace, name };
}

/** describeResource names a resource in messages: `<kind> <namespace>/<name>`. */
export function describeResource(kind: string, resource: NamedResource): string {
  return `${kind} ${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
}
