/**
 * The core/v1 Secret kind: small pieces of sensitive data, base64-encoded in `data`.
 * `stringData` is a write-only convenience: its plain-text values are encoded into `data`
 * on every write and the field is dropped. A Secret's `type` never changes, and an
 * `immutable` Secret keeps its data for life.
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import type { ResourceType, Strategy, ValidationContext } from '../registry/resource-type.js';
import { child, immutable, invalid, key, required, tooLong } from './field-errors.js';
import { decodedLength, maxDataSize, stringEntries, validateImmutableData, validateKeys } from './config-data.js';
import { resourceSchema } from './object-meta-schema.js';
import { bool, byteMap, str, stringMap } from './schema-builders.js';
import { verbsFor } from './verbs.js';

/** The type a Secret gets when it names none. */
export const defaultSecretType = 'Opaque';

function secretSchema() {
  return resourceSchema('A Secret holds a small amount of sensitive data, such as a password, a token or a key, for workloads and controllers to read.', {
    data: byteMap(
      'The secret data. Keys consist of alphanumeric characters, "-", "_" or "."; values are arbitrary bytes, base64-encoded in JSON and YAML. All values together may hold at most 1 MiB.',
      'One value, base64-encoded.',
    ),
    stringData: stringMap(
      'Write-only plain-text data for convenience: each entry is encoded into data on write (replacing a data entry with the same key) and this field is never returned.',
      'One plain-text value.',
    ),
    type: str(
      'How the data is meant to be used, which decides the keys it must contain: Opaque (no rules, the default), kubernetes.io/tls (tls.crt and tls.key), kubernetes.io/dockerconfigjson (.dockerconfigjson), kubernetes.io/basic-auth, kubernetes.io/ssh-auth, kubernetes.io/service-account-token, or a type of your own. Cannot change after creation.',
    ),
    immutable: bool(
      'When true, data can no longer be changed and immutable cannot be unset; only metadata may change. The object can still be deleted and recreated.',
    ),
  });
}

/**
 * Encodes `stringData` into `data` and removes it; sets the default type. Malformed
 * stringData (not a map of strings) is left in place for the schema to report.
 */
function normalize(o: KObject): void {
  const sd = o.stringData;
  if (sd === null || sd === undefined) {
    delete o.stringData;
  } else if (isPlainObject(sd) && Object.values(sd).every((v) => typeof v === 'string')) {
    // fromEntries defines own properties, so keys such as "__proto__" survive.
    const data = Object.fromEntries([
      ...(isPlainObject(o.data) ? Object.entries(o.data) : []),
      ...Object.entries(sd).map(([k, v]) => [k, Buffer.from(v as string, 'utf8').toString('base64')] as const),
    ]);
    if (Object.keys(data).length > 0 || o.data !== undefined) o.data = data;
    delete o.stringData;
  }
  if (o.type === undefined || o.type === null || o.type === '') o.type = defaultSecretType;
}

function dataValue(o: KObject, k: string): string | undefined {
  if (!isPlainObject(o.data)) return undefined;
  const v = o.data[k];
  return typeof v === 'string' ? v : undefined;
}

function requireKeys(o: KObject, keys: string[]): StatusCause[] {
  return keys.filter((k) => dataValue(o, k) === undefined).map((k) => required(key('data', k)));
}

function requireJsonKey(o: KObject, k: string): StatusCause[] {
  const v = dataValue(o, k);
  if (v === undefined) return [required(key('data', k))];
  try {
    const parsed: unknown = JSON.parse(Buffer.from(v, 'base64').toString('utf8'));
    if (!isPlainObject(parsed)) throw new Error('the content must be a JSON object');
  } catch (err) {
    return [invalid(key('data', k), '<secret contents redacted>', (err as Error).message)];
  }
  return [];
}

/** Causes for the keys a Secret of a well-known type must contain. */
function validateType(o: KObject): StatusCause[] {
  switch (o.type) {
    case 'kubernetes.io/service-account-token': {
      const ann = isPlainObject(o.metadata.annotations) ? o.metadata.annotations : {};
      const k = 'kubernetes.io/service-account.name';
      return ann[k] ? [] : [required(key(child('metadata', 'annotations'), k))];
    }
    case 'kubernetes.io/dockercfg':
      return requireJsonKey(o, '.dockercfg');
    case 'kubernetes.io/dockerconfigjson':
      return requireJsonKey(o, '.dockerconfigjson');
    case 'kubernetes.io/basic-auth':
      return dataValue(o, 'username') === undefined && dataValue(o, 'password') === undefined ? requireKeys(o, ['username', 'password']) : [];
    case 'kubernetes.io/ssh-auth':
      return dataValue(o, 'ssh-privatekey') ? [] : [required(key('data', 'ssh-privatekey'))];
    case 'kubernetes.io/tls':
      return requireKeys(o, ['tls.crt', 'tls.key']);
    default:
      return [];
  }
}

/** Causes for a Secret's own fields (metadata is checked by the caller). */
export function validateSecret(o: KObject, ctx: ValidationContext): StatusCause[] {
  const causes: StatusCause[] = [];
  causes.push(...validateKeys(o.data, 'data'));
  let total = 0;
  for (const [, v] of stringEntries(o.data)) total += decodedLength(v);
  if (total > maxDataSize) causes.push(tooLong('data', maxDataSize));
  causes.push(...validateType(o));
  if (ctx.operation === 'update' && ctx.old) {
    if (o.type !== ctx.old.type) causes.push(immutable('type', o.type ?? ''));
    causes.push(...validateImmutableData(o, ctx.old, ['data']));
  }
  return causes;
}

/** A secretStrategy holds Secret defaults and checks. */
export const secretStrategy: Strategy = {
  prepareForCreate: normalize,
  prepareForUpdate: (o) => normalize(o),
  validate: validateSecret,
  selectableFields: (o) => ({ type: typeof o.type === 'string' ? o.type : '' }),
};

/** The ResourceType of core/v1 Secret. */
export function secretResourceType(): ResourceType {
  return {
    group: '',
    version: 'v1',
    kind: 'Secret',
    listKind: 'SecretList',
    resource: 'secrets',
    singular: 'secret',
    shortNames: [],
    categories: [],
    namespaced: true,
    subresources: { status: false },
    verbs: verbsFor('Secret'),
    schema: secretSchema(),
    printerColumns: [
      {
        name: 'Type',
        type: 'string',
        description: 'How the secret data is meant to be used.',
        cell: (o) => (typeof o.type === 'string' ? o.type : ''),
      },
      {
        name: 'Data',
        type: 'integer',
        description: 'The number of keys in the secret data.',
        cell: (o) => (isPlainObject(o.data) ? Object.keys(o.data).length : 0),
      },
    ],
    tracksGeneration: false,
    structural: false,
    strategy: secretStrategy,
    source: { type: 'builtin' },
  };
}
