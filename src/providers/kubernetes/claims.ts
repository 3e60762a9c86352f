/**
 * How a KubernetesObject implements Bucket and PostgreSQLInstance claims, generically: the
 * class template is the operator's custom resource (spec.forProvider.manifest) with the
 * connectionDetails that produce the claim kind's keys.
 * - matcher: every existing KubernetesObject fits — what the object becomes is the
 *   template's business (a class that cannot serve a claim kind should not list it in
 *   supportedResources); a class fits when the claim's values fill its placeholders into
 *   fields they may land in (placeholders.ts), else the claim is told which field;
 * - configurator: the template's spec with the claim written into the manifest: a manifest
 *   without metadata.name is named after the claim (`<namespace>-<name>-<hash>`, see nameFor), and every string `$(claim.namespace)`, `$(claim.name)`,
 *   `$(claim.spec.<path>)` is replaced by that field of the claim (placeholders.ts);
 * - connection formatters: the details mapped to exactly the claim kind's keys.
 */
import { createHash } from 'node:crypto';
import { deepCopy, isPlainObject, type JsonObject, type KObject } from '../../machinery/object.js';
import { BUCKET_CONNECTION_KEYS, SQL_CONNECTION_KEYS } from '../../apis/storage/kinds.js';
import { doesNotFit, fits, type ClaimImplementation, type ConnectionDetails, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../spi.js';
import { uriHost } from '../uri-host.js';
import { bucketClaimKind, postgresqlClaimKind, type KubernetesObject } from './kinds.js';
import { fillPlaceholders, PlaceholderError } from './placeholders.js';

/**
 * matchKubernetesObject: an existing KubernetesObject fits any claim of the kinds it
 * implements; a class fits when the claim's values fill its template's placeholders into
 * fields they may land in (placeholders.ts) — otherwise the class does not fit, and the
 * claim's Scheduled condition names the field.
 */
export function matchKubernetesObject(claim: KObject, candidate: MatchCandidate<KubernetesObject>): MatchResult {
  if (candidate.type === 'resource') return fits;
  try {
    configureKubernetesObject(claim, candidate.template);
    return fits;
  } catch (err) {
    if (err instanceof PlaceholderError) return doesNotFit(err.message);
    throw err;
  }
}

/**
 * nameFor is a claim's default object name in the target: `<namespace>-<name>-<hash>`, at most
 * 63 characters. The 12-hex hash covers the exact, length-prefixed namespace and name, so
 * claim `b-c` in namespace `a` and claim `c` in `a-b` never get one name (one tenant could
 * otherwise take the name another's claim will need).
 */
export function nameFor(claim: KObject): string {
  const namespace = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  const hash = createHash('sha256').update(`${namespace.length}:${namespace}/${name.length}:${name}`).digest('hex').slice(0, 12);
  const readable = `${namespace}-${name}`
    .toLowerCase()
    .slice(0, 63 - 13)
    .replace(/-+$/, '');
  return `${readable}-${hash}`;
}

/** configureKubernetesObject builds a KubernetesObject's spec from a class template and a claim; it modifies neither. */
export function configureKubernetesObject(claim: KObject, template: ResourceTemplate): JsonObject {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const forProvider = spec.forProvider;
  if (!isPlainObject(forProvider) || !isPlainObject(forProvider.manifest)) return spec;
  const manifest = fillPlaceholders(forProvider.manifest, claim, { observeOnly: spec.managementPolicy === 'ObserveOnly' });
  const metadata: JsonObject = isPlainObject(manifest.metadata) ? manifest.metadata : {};
  if (typeof metadata.name !== 'string' || metadata.name === '') metadata.name = nameFor(claim);
  manifest.metadata = metadata;
  forProvider.manifest = manifest;
  return spec;
}

function requireKeys(details: ConnectionDetails, keys: readonly string[], claimKind: string): void {
  const missing = keys.filter((k) => !details[k]);
  if (missing.length > 0) {
    throw new Error(
      `the KubernetesObject's connection details lack ${missing.join(', ')} for a ${claimKind} claim: map them with spec.forProvider.connectionDetails (toKey)`,
    );
  }
}

/**
 * endpointOf is the `endpoint` detail, or one built from `bucketHost` and `bucketPort` (object
 * bucket provisioners publish host and port apart): https on port 443, http otherwise.
 */
function endpointOf(details: ConnectionDetails): string | undefined {
  if (details.endpoint) return details.endpoint;
  const host = details.bucketHost;
  if (!host) return undefined;
  const port = details.bucketPort || '443';
  if (!/^[0-9]+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    throw new Error(`the KubernetesObject's connection detail bucketPort is "${port}": want an integer from 1 to 65535`);
  }
  return `${port === '443' ? 'https' : 'http'}://${uriHost(host)}:${port}`;
}

/**
 * formatBucket keeps the Bucket keys; `endpoint` may be given as `bucketHost` and `bucketPort`,
 * and region defaults to us-east-1 (the S3 convention) when no detail gives one.
 */
export function formatBucket(raw: ConnectionDetails): ConnectionDetails {
  const endpoint = endpointOf(raw);
  const details = endpoint ? { ...raw, endpoint } : raw;
  requireKeys(details, ['endpoint', 'bucket', 'accessKeyId', 'secretAccessKey'], 'Bucket');
  const out: ConnectionDetails = {};
  for (const k of BUCKET_CONNECTION_KEYS) out[k] = details[k] ?? '';
  if (!out.region) out.region = 'us-east-1';
  return out;
}

/** formatPostgreSQL keeps the SQL keys; port defaults to 5432 and uri is built when no detail gives it. */
export function formatPostgreSQL(details: ConnectionDetails): ConnectionDetails {
  requireKeys(details, ['host', 'username', 'password', 'database'], 'PostgreSQLInstance');
  const port = details.port || '5432';
  if (!/^[0-9]+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    throw new Error(`the KubernetesObject's connection detail port is "${port}": want an integer from 1 to 65535`);
  }
  const e = encodeURIComponent;
  const uri = details.uri || `postgresql://${e(details.username)}:${e(details.password)}@${uriHost(details.host)}:${port}/${e(details.database)}`;
  const out: ConnectionDetails = {};
  for (const k of SQL_CONNECTION_KEYS) out[k] = k === 'port' ? port : k === 'uri' ? uri : details[k];
  return out;
}

/** The claim implementations of a KubernetesObject. */
export const kubernetesObjectClaims: readonly ClaimImplementation<KubernetesObject>[] = [
  {
    claimKind: bucketClaimKind,
    connectionSecretKeys: BUCKET_CONNECTION_KEYS,
    match: matchKubernetesObject,
    configure: configureKubernetesObject,
    formatConnection: formatBucket,
  },
  {
    claimKind: postgresqlClaimKind,
    connectionSecretKeys: SQL_CONNECTION_KEYS,
    match: matchKubernetesObject,
    configure: configureKubernetesObject,
    formatConnection: formatPostgreSQL,
  },
];
