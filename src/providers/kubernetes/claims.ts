/**
 * How a KubernetesObject implements Bucket and PostgreSQLInstance claims, generically: the
 * class template is the operator's custom resource (spec.forProvider.manifest) with the
 * connectionDetails that produce the claim kind's keys.
 * - matcher: every candidate fits — what the object becomes is the template's business (a
 *   class that cannot serve a claim kind should not list it in supportedResources);
 * - configurator: the template's spec with the claim written into the manifest: a manifest
 *   without metadata.name is named after the claim (`<namespace>-<name>`, shortened with a
 *   hash when longer than 63), and every string `$(claim.namespace)`, `$(claim.name)`,
 *   `$(claim.spec.<path>)` is replaced by that field of the claim (a string that is only a
 *   placeholder takes the field's value and type; one the claim does not set removes the
 *   field, so the target's default applies);
 * - connection formatters: the details mapped to exactly the claim kind's keys.
 */
import { createHash } from 'node:crypto';
import { deepCopy, isPlainObject, type JsonObject, type JsonValue, type KObject } from '../../machinery/object.js';
import { BUCKET_CONNECTION_KEYS, SQL_CONNECTION_KEYS } from '../../apis/storage/kinds.js';
import { fits, type ClaimImplementation, type ConnectionDetails, type MatchResult, type ResourceTemplate } from '../spi.js';
import { uriHost } from '../uri-host.js';
import { bucketClaimKind, postgresqlClaimKind, type KubernetesObject } from './kinds.js';

/** matchAny: a KubernetesObject (or a class making one) fits any claim of the kinds it implements. */
export function matchAny(): MatchResult {
  return fits;
}

const PLACEHOLDER = /\$\(claim\.([A-Za-z0-9_.-]+)\)/g;
const ONLY_PLACEHOLDER = /^\$\(claim\.([A-Za-z0-9_.-]+)\)$/;

function claimField(claim: KObject, path: string): JsonValue | undefined {
  if (path === 'namespace') return claim.metadata.namespace;
  if (path === 'name') return claim.metadata.name;
  let at: unknown = claim;
  for (const part of path.split('.')) {
    if (!isPlainObject(at)) return undefined;
    at = at[part];
  }
  return at === undefined || (typeof at === 'object' && at !== null) ? undefined : (at as JsonValue);
}

const REMOVE = Symbol('remove');

function substitute(value: JsonValue, claim: KObject): JsonValue | typeof REMOVE {
  if (typeof value === 'string') {
    const only = ONLY_PLACEHOLDER.exec(value);
    if (only) return claimField(claim, only[1]) ?? REMOVE;
    return value.replace(PLACEHOLDER, (_, path: string) => {
      const v = claimField(claim, path);
      return v === undefined || v === null ? '' : String(v);
    });
  }
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (const item of value) {
      const v = substitute(item, claim);
      if (v !== REMOVE) out.push(v);
    }
    return out;
  }
  if (isPlainObject(value)) {
    const out: JsonObject = {};
    for (const [k, item] of Object.entries(value)) {
      const v = substitute(item, claim);
      if (v !== REMOVE) out[k] = v;
    }
    return out;
  }
  return value;
}

/** nameFor is a claim's default object name in the target: `<namespace>-<name>`, at most 63 characters. */
export function nameFor(claim: KObject): string {
  const full = `${claim.metadata.namespace ?? ''}-${claim.metadata.name ?? ''}`.toLowerCase();
  if (full.length <= 63) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${full.slice(0, 54).replace(/-+$/, '')}-${hash}`;
}

/** configureKubernetesObject builds a KubernetesObject's spec from a class template and a claim; it modifies neither. */
export function configureKubernetesObject(claim: KObject, template: ResourceTemplate): JsonObject {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const forProvider = spec.forProvider;
  if (!isPlainObject(forProvider) || !isPlainObject(forProvider.manifest)) return spec;
  const manifest = substitute(forProvider.manifest, claim) as JsonObject;
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

/** formatBucket keeps the Bucket keys; region defaults to us-east-1 (the S3 convention) when no detail gives one. */
export function formatBucket(details: ConnectionDetails): ConnectionDetails {
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
    match: matchAny,
    configure: configureKubernetesObject,
    formatConnection: formatBucket,
  },
  {
    claimKind: postgresqlClaimKind,
    connectionSecretKeys: SQL_CONNECTION_KEYS,
    match: matchAny,
    configure: configureKubernetesObject,
    formatConnection: formatPostgreSQL,
  },
];
