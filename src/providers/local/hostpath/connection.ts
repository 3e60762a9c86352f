/**
 * The connection details of a Volume claim: `path server export` (docs/design.md 3.1). A host
 * path volume is a directory on Conductor's machine: `path` and `export` are that directory
 * and `server` is "localhost".
 */
import type { ConnectionDetails } from '../../spi.js';
import { localServer, volumeSecretKeys } from './kinds.js';

/** volumeDetails are the connection details of the directory `path` on this machine. */
export function volumeDetails(path: string): ConnectionDetails {
  return { path, server: localServer, export: path };
}

/**
 * formatVolumeConnection is the Volume claim kind's connection formatter: it keeps exactly
 * the documented keys, fills `server` and `export` from `path` when only `path` is given, and
 * throws when there is neither a path nor a server and export, or a path is not absolute.
 */
export function formatVolumeConnection(details: ConnectionDetails): ConnectionDetails {
  const path = details.path || undefined;
  const server = details.server || (path ? localServer : undefined);
  const exported = details.export || path;
  if (!server || !exported) {
    throw new Error('Volume connection details lack path, or server and export: want path, or both server and export');
  }
  if (path !== undefined && !path.startsWith('/')) {
    throw new Error(`Volume connection details have path "${path}": want an absolute path`);
  }
  const out: ConnectionDetails = { server, export: exported };
  if (path !== undefined) out.path = path;
  return Object.fromEntries(volumeSecretKeys.filter((k) => out[k] !== undefined).map((k) => [k, out[k]]));
}
