/**
 * What an `azure` Provider's credentials Secret holds, read and checked for shape (whether
 * the key authenticates is the Provider check's business). For the storage kinds, one of:
 * - `accountName` + `accountKey` (a storage account's shared key), with optional
 *   `blobEndpoint` and `queueEndpoint` (default `https://<account>.blob.core.windows.net` …);
 * - `connectionString`, as the Azure portal shows it (`AccountName=…;AccountKey=…;
 *   EndpointSuffix=…` or with `BlobEndpoint=`/`QueueEndpoint=`), or `UseDevelopmentStorage=true`
 *   for a local Azurite on its default ports. `blobEndpoint`/`queueEndpoint` keys override it.
 * For the database and cache kinds (Azure Resource Manager): a service principal —
 * `tenantId`, `clientId`, `clientSecret` (all three or none) — with `subscriptionId` and
 * `resourceGroup` (where the servers and caches are made), optional `armEndpoint` (default
 * https://management.azure.com) and `authorityHost` (default https://login.microsoftonline.com;
 * both https: the SDKs send bearer tokens only over TLS), and optional `adminPasswordKey` (what
 * the admin passwords Conductor generates are derived from; default the client secret).
 * A Secret may hold either form or both; each kind asks for the one it needs.
 *
 * Every error names the key at fault and never quotes a value.
 */

/** A StorageAccount is how the storage kinds reach and sign for one storage account. */
export interface StorageAccount {
  accountName: string;
  /** The base64 shared key: signs requests and the per-claim SAS tokens; never published. */
  accountKey: string;
  /** The blob service's base URL, without a trailing slash (Azurite: `http://127.0.0.1:10000/<account>`). */
  blobEndpoint: string;
  queueEndpoint: string;
}

/** A ServicePrincipal is an Entra ID application's client credentials. */
export interface ServicePrincipal {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

/** An ArmAccess is how the database and cache kinds reach Azure Resource Manager. */
export interface ArmAccess {
  principal: ServicePrincipal;
  subscriptionId: string;
  resourceGroup: string;
  /** The ARM base URL, without a trailing slash (default https://management.azure.com). */
  armEndpoint: string;
  /** The Entra ID authority host (default https://login.microsoftonline.com). */
  authorityHost: string;
  /** What generated admin passwords are derived from (never published). */
  adminPasswordKey: string;
}

/** AzureCredentials are everything a credentials Secret held, checked: a storage account, ARM access, or both. */
export interface AzureCredentials {
  storage?: StorageAccount;
  arm?: ArmAccess;
  servicePrincipal?: ServicePrincipal;
  subscriptionId?: string;
}

/** A CredentialsError says what is wrong with a credentials Secret's keys (never quoting a value). */
export class CredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsError';
  }
}

/** The keys a credentials Secret may have. */
export const CREDENTIAL_KEYS = [
  'accountName',
  'accountKey',
  'connectionString',
  'blobEndpoint',
  'queueEndpoint',
  'tenantId',
  'clientId',
  'clientSecret',
  'subscriptionId',
  'resourceGroup',
  'armEndpoint',
  'authorityHost',
  'adminPasswordKey',
] as const;

export const DEFAULT_ARM_ENDPOINT = 'https://management.azure.com';
export const DEFAULT_AUTHORITY_HOST = 'https://login.microsoftonline.com';

/** Azure's rule for resource group names: 1–90 letters, digits, _ ( ) - and ., not ending in a period. */
export const RESOURCE_GROUP_PATTERN = /^[-\w._()]{0,89}[-\w_()]$/u;

/** Azurite's documented development account (public, the same in every Azurite). */
const DEVELOPMENT_ACCOUNT = 'devstoreaccount1';
const DEVELOPMENT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** accountNameProblem says why a storage account name is not one Azure accepts (3–24 lower-case letters and digits). */
export function accountNameProblem(name: string): string | undefined {
  return /^[a-z0-9]{3,24}$/.test(name) ? undefined : 'is not a storage account name: want 3 to 24 lower-case letters and digits';
}

function checkKey(key: string, where: string): string {
  const compact = key.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 !== 0 || Buffer.from(compact, 'base64').length < 16) {
    throw new CredentialsError(`${where} is not a storage account key: want the base64 key the Azure portal shows under "Access keys"`);
  }
  return compact;
}

/**
 * serviceEndpoint reads a service's base URL: https, or plain http only to a loopback address
 * (an emulator such as Azurite on this machine: the shared key signs requests without being
 * sent, but data would travel in clear). No user, query or fragment.
 */
export function serviceEndpoint(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CredentialsError(`${where} is not a URL: want https://<account>.blob.core.windows.net or, for an emulator, http://127.0.0.1:<port>/<account>`);
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new CredentialsError(`${where} uses http to a host that is not this machine: want https (plain http only for an emulator on 127.0.0.1)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CredentialsError(`${where} is not an http(s) URL`);
  if (url.username || url.password || url.search || url.hash)
    throw new CredentialsError(`${where} has a user, query or fragment: want only scheme, host, port and path`);
  return url.toString().replace(/\/+$/, '');
}

/** parseConnectionString reads `Key=Value;…` pairs (a value may hold `=`); keys are case-insensitive. */
function parseConnectionString(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text.split(';')) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    if (eq <= 0) throw new CredentialsError('key connectionString is not a list of Name=Value pairs separated by ";"');
    out.set(trimmed.slice(0, eq).trim().toLowerCase(), trimmed.slice(eq + 1).trim());
  }
  return out;
}

function storageFromConnectionString(text: string, overrides: { blob?: string; queue?: string }): StorageAccount {
  const cs = parseConnectionString(text);
  if (cs.get('usedevelopmentstorage')?.toLowerCase() === 'true') {
    return {
      accountName: DEVELOPMENT_ACCOUNT,
      accountKey: DEVELOPMENT_KEY,
      blobEndpoint: overrides.blob ?? `http://127.0.0.1:10000/${DEVELOPMENT_ACCOUNT}`,
      queueEndpoint: overrides.queue ?? `http://127.0.0.1:10001/${DEVELOPMENT_ACCOUNT}`,
    };
  }
  if (cs.has('sharedaccesssignature')) {
    throw new CredentialsError(
      'key connectionString holds a SharedAccessSignature: Conductor signs a SAS per claim and needs the account key — give AccountName and AccountKey',
    );
  }
  const accountName = cs.get('accountname');
  if (!accountName) throw new CredentialsError('key connectionString has no AccountName: want AccountName=…;AccountKey=…');
  const problem = accountNameProblem(accountName);
  if (problem) throw new CredentialsError(`key connectionString: AccountName ${problem}`);
  const rawKey = cs.get('accountkey');
  if (!rawKey) throw new CredentialsError('key connectionString has no AccountKey: want AccountName=…;AccountKey=…');
  const accountKey = checkKey(rawKey, 'key connectionString: AccountKey');
  const protocol = (cs.get('defaultendpointsprotocol') ?? 'https').toLowerCase();
  if (protocol !== 'https' && protocol !== 'http') throw new CredentialsError('key connectionString: DefaultEndpointsProtocol is neither https nor http');
  const suffix = cs.get('endpointsuffix') ?? 'core.windows.net';
  if (!DOMAIN.test(suffix)) throw new CredentialsError('key connectionString: EndpointSuffix is not a domain name, e.g. core.windows.net');
  const endpoint = (service: 'blob' | 'queue', override: string | undefined) => {
    if (override) return override;
    const given = cs.get(`${service}endpoint`);
    if (given) return serviceEndpoint(given, `key connectionString: ${service === 'blob' ? 'BlobEndpoint' : 'QueueEndpoint'}`);
    return serviceEndpoint(`${protocol}://${accountName}.${service}.${suffix}`, `key connectionString (the ${service} endpoint it implies)`);
  };
  return { accountName, accountKey, blobEndpoint: endpoint('blob', overrides.blob), queueEndpoint: endpoint('queue', overrides.queue) };
}

function servicePrincipalFrom(data: Record<string, string>): ServicePrincipal | undefined {
  const tenantId = nonEmpty(data.tenantId);
  const clientId = nonEmpty(data.clientId);
  const clientSecret = data.clientSecret === undefined || data.clientSecret === '' ? undefined : data.clientSecret;
  if (tenantId === undefined && clientId === undefined && clientSecret === undefined) return undefined;
  const missing = [tenantId === undefined ? 'tenantId' : '', clientId === undefined ? 'clientId' : '', clientSecret === undefined ? 'clientSecret' : ''].filter(
    (k) => k !== '',
  );
  if (missing.length > 0)
    throw new CredentialsError(`the credentials Secret has part of a service principal: add ${missing.join(' and ')} (or remove the others)`);
  if (!GUID.test(tenantId!) && !DOMAIN.test(tenantId!))
    throw new CredentialsError('key tenantId is neither a GUID nor a domain name (e.g. contoso.onmicrosoft.com)');
  if (!GUID.test(clientId!)) throw new CredentialsError("key clientId is not a GUID: want the application's client ID");
  return { tenantId: tenantId!, clientId: clientId!, clientSecret: clientSecret! };
}

/**
 * azureCredentialsFrom reads the decoded data of a credentials Secret. It throws a
 * CredentialsError naming the key that is missing or malformed; it never quotes a value.
 */
export function azureCredentialsFrom(data: Record<string, string> | undefined): AzureCredentials {
  if (!data || Object.keys(data).length === 0) {
    throw new CredentialsError(
      'the Provider names no credentials Secret, or it is empty: want a Secret with accountName and accountKey, or connectionString (storage kinds), and/or tenantId, clientId, clientSecret, subscriptionId and resourceGroup (database and cache kinds)',
    );
  }
  const storage = storageFrom(data);
  const servicePrincipal = servicePrincipalFrom(data);
  const subscriptionId = nonEmpty(data.subscriptionId);
  if (subscriptionId !== undefined && !GUID.test(subscriptionId)) throw new CredentialsError('key subscriptionId is not a GUID');
  const arm = servicePrincipal ? armAccessFrom(data, servicePrincipal, subscriptionId) : undefined;
  if (!storage && !servicePrincipal) {
    throw new CredentialsError(
      'the credentials Secret has neither accountName and accountKey nor connectionString (storage kinds) nor tenantId, clientId and clientSecret (database and cache kinds): add one form',
    );
  }
  return {
    ...(storage ? { storage } : {}),
    ...(arm ? { arm } : {}),
    ...(servicePrincipal ? { servicePrincipal } : {}),
    ...(subscriptionId !== undefined ? { subscriptionId } : {}),
  };
}

function storageFrom(data: Record<string, string>): StorageAccount | undefined {
  const overrides = {
    blob: nonEmpty(data.blobEndpoint) !== undefined ? serviceEndpoint(nonEmpty(data.blobEndpoint)!, 'key blobEndpoint') : undefined,
    queue: nonEmpty(data.queueEndpoint) !== undefined ? serviceEndpoint(nonEmpty(data.queueEndpoint)!, 'key queueEndpoint') : undefined,
  };
  const connectionString = nonEmpty(data.connectionString);
  const accountName = nonEmpty(data.accountName);
  const rawKey = nonEmpty(data.accountKey);
  if (connectionString !== undefined) {
    if (accountName !== undefined || rawKey !== undefined) {
      throw new CredentialsError('the credentials Secret has both connectionString and accountName/accountKey: keep one form');
    }
    return storageFromConnectionString(connectionString, overrides);
  }
  if (accountName === undefined && rawKey === undefined) {
    if (overrides.blob !== undefined || overrides.queue !== undefined) {
      throw new CredentialsError(
        'the credentials Secret has blobEndpoint or queueEndpoint but neither accountName and accountKey nor connectionString: add one form',
      );
    }
    return undefined;
  }
  if (accountName === undefined) throw new CredentialsError('the credentials Secret has accountKey but no accountName: add accountName');
  if (rawKey === undefined) throw new CredentialsError('the credentials Secret has accountName but no accountKey: add accountKey');
  const problem = accountNameProblem(accountName);
  if (problem) throw new CredentialsError(`key accountName ${problem}`);
  return {
    accountName,
    accountKey: checkKey(rawKey, 'key accountKey'),
    blobEndpoint: overrides.blob ?? `https://${accountName}.blob.core.windows.net`,
    queueEndpoint: overrides.queue ?? `https://${accountName}.queue.core.windows.net`,
  };
}

/** httpsEndpoint reads an ARM or authority base URL: https only (bearer tokens never travel in clear), no user, query or fragment. */
export function httpsEndpoint(value: string, where: string, example: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CredentialsError(`${where} is not a URL: want ${example}`);
  }
  if (url.protocol !== 'https:') throw new CredentialsError(`${where} is not an https URL: want ${example} (bearer tokens are sent only over TLS)`);
  if (url.username || url.password || url.search || url.hash)
    throw new CredentialsError(`${where} has a user, query or fragment: want only scheme, host, port and path`);
  return url.toString().replace(/\/+$/, '');
}

function armAccessFrom(data: Record<string, string>, principal: ServicePrincipal, subscriptionId: string | undefined): ArmAccess {
  const resourceGroup = nonEmpty(data.resourceGroup);
  const missing = [subscriptionId === undefined ? 'subscriptionId' : '', resourceGroup === undefined ? 'resourceGroup' : ''].filter((k) => k !== '');
  if (missing.length > 0)
    throw new CredentialsError(
      `the credentials Secret has a service principal but no ${missing.join(' and ')}: add ${missing.length > 1 ? 'them' : 'it'} (the database and cache kinds make their servers in that subscription and resource group)`,
    );
  if (!RESOURCE_GROUP_PATTERN.test(resourceGroup!))
    throw new CredentialsError(
      'key resourceGroup is not a resource group name: want 1 to 90 letters, digits, underscores, hyphens, periods and parentheses, not ending in a period',
    );
  const armEndpoint = nonEmpty(data.armEndpoint);
  const authorityHost = nonEmpty(data.authorityHost);
  const passwordKey = data.adminPasswordKey === undefined || data.adminPasswordKey === '' ? undefined : data.adminPasswordKey;
  if (passwordKey !== undefined && passwordKey.length < 16)
    throw new CredentialsError('key adminPasswordKey is shorter than 16 characters: want a long random string');
  return {
    principal,
    subscriptionId: subscriptionId!,
    resourceGroup: resourceGroup!,
    armEndpoint: armEndpoint !== undefined ? httpsEndpoint(armEndpoint, 'key armEndpoint', DEFAULT_ARM_ENDPOINT) : DEFAULT_ARM_ENDPOINT,
    authorityHost: authorityHost !== undefined ? httpsEndpoint(authorityHost, 'key authorityHost', DEFAULT_AUTHORITY_HOST) : DEFAULT_AUTHORITY_HOST,
    adminPasswordKey: passwordKey ?? principal.clientSecret,
  };
}

/** storageAccountOf is the storage account the storage kinds need, or a CredentialsError saying the Secret has none. */
export function storageAccountOf(credentials: AzureCredentials): StorageAccount {
  if (!credentials.storage)
    throw new CredentialsError(
      'the credentials Secret has no storage account: add accountName and accountKey, or connectionString (BlobContainer and StorageQueue need one)',
    );
  return credentials.storage;
}

/** armAccessOf is the ARM access the database and cache kinds need, or a CredentialsError saying the Secret has none. */
export function armAccessOf(credentials: AzureCredentials): ArmAccess {
  if (!credentials.arm)
    throw new CredentialsError(
      'the credentials Secret has no service principal: add tenantId, clientId, clientSecret, subscriptionId and resourceGroup (the database and cache kinds need them)',
    );
  return credentials.arm;
}
