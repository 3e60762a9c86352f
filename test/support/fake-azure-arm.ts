/**
 * Test support: an HTTP-level fake of the parts of Azure that have no emulator here — the
 * Entra ID (AAD) token endpoint for a service principal's client credentials, and the Azure
 * Resource Manager REST API of PostgreSQL and MySQL flexible servers (with their databases)
 * and Azure Cache for Redis — served on https (127.0.0.1, a certificate of a CA made for the
 * test: the SDKs send bearer tokens only over TLS) and keeping state in memory. It follows
 * what Azure documents:
 * - tokens: `POST /{tenant}/oauth2/v2.0/token` (client_credentials) with the one known client
 *   id and secret; a wrong secret gets 401 invalid_client (AADSTS7000215), an unknown tenant
 *   400 invalid_request (AADSTS90002); `GET /{tenant}/v2.0/.well-known/openid-configuration`;
 * - ARM: every call needs a token it issued (401 InvalidAuthenticationToken), the known
 *   subscription (404 SubscriptionNotFound) and resource group (404 ResourceGroupNotFound);
 * - flexible servers: PUT answers 201 with `Azure-AsyncOperation` and `Location` headers; the
 *   operation is `InProgress` for `steps` polls (of the operation or the server), then
 *   `Succeeded` (the server `Ready`); until then GET of the server is 404. A PUT of a server
 *   being created answers the same operation; a PUT of an existing server updates it (sku,
 *   storage); DELETE answers 202 and the server is `Dropping` for `steps` polls, then gone;
 *   databases the same way (PUT 201 + operation);
 * - Redis: PUT answers 201 with `provisioningState: Creating`, `Succeeded` after `steps`
 *   polls; POST listKeys; DELETE → `Deleting`, then gone;
 * - errors: 400 InvalidParameter (unknown SKU, bad location, a weak admin password), quota
 *   (`QuotaExceeded` once `quota` servers exist), 409 Conflict (a server being deleted), and
 *   anything a test asks next (`failNext`: e.g. 429 with Retry-After).
 * State moves only when something polls: no timing. Never shipped: only tests import this.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Agent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDefaultHttpClient, type HttpClient } from '@azure/core-rest-pipeline';
import { ensurePki } from '../../src/apiserver/auth/pki.js';

export const FAKE_TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
export const FAKE_CLIENT_ID = '0b9e5c2e-4b8f-4bd6-9c36-3f0c7a1d2e11';
export const FAKE_SUBSCRIPTION = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
export const FAKE_RESOURCE_GROUP = 'conductor-test';

/** The SKUs the fake offers (Azure offers more; these are the ones the tests use). */
const PG_SKUS = new Set(['Standard_B1ms', 'Standard_B2s', 'Standard_D2ds_v5', 'Standard_D4ds_v5', 'Standard_E2ds_v5']);
const REDIS_SKUS = new Set(['Basic', 'Standard', 'Premium']);
const LOCATIONS = new Set(['eastus', 'eastus2', 'westeurope', 'northeurope', 'westus2', 'uksouth', 'southeastasia']);

type Provider = 'Microsoft.DBforPostgreSQL' | 'Microsoft.DBforMySQL';

/** A FakeServer is a flexible server as the fake keeps it. */
export interface FakeServer {
  provider: Provider;
  name: string;
  location: string;
  body: Record<string, unknown>;
  /** Ready, Dropping; absent from GET while `creating`. */
  state: 'Creating' | 'Ready' | 'Dropping';
  stepsLeft: number;
  operation: string;
  adminPassword: string;
  databases: Map<string, { operation: string; body: Record<string, unknown> }>;
}

/** A FakeCache is a Redis cache as the fake keeps it. */
export interface FakeCache {
  name: string;
  location: string;
  body: Record<string, unknown>;
  provisioningState: 'Creating' | 'Succeeded' | 'Deleting' | 'Updating';
  stepsLeft: number;
  primaryKey: string;
  secondaryKey: string;
}

interface Operation {
  status: 'InProgress' | 'Succeeded' | 'Failed';
  stepsLeft: number;
  /** Set: the operation ends Failed with this error (and onFail runs instead of onDone). */
  error?: { code: string; message: string };
  onDone?: () => void;
  onFail?: () => void;
}

/** A Failure is an answer a test asks for next, instead of the real one. */
export interface Failure {
  method?: string;
  /** A piece of the path the request must contain. */
  path?: string;
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
  /** How many requests get it (default 1). */
  times?: number;
}

export interface FakeAzureArmOptions {
  /** How many polls a create, update or delete takes (default 2). */
  steps?: number;
  /** How many flexible servers and caches the subscription may hold (default 20). */
  quota?: number;
}

/** A FakeAzureArm is the running fake. */
export interface FakeAzureArm {
  /** `https://127.0.0.1:<port>`: both the authority host and the ARM endpoint. */
  url: string;
  /** The CA that signed the fake's certificate (PEM), and a file holding it (for NODE_EXTRA_CA_CERTS). */
  caPem: string;
  caFile: string;
  clientSecret: string;
  /** An HttpClient trusting the fake's CA, for SDK clients in the test's own process. */
  httpClient: HttpClient;
  servers: Map<string, FakeServer>;
  caches: Map<string, FakeCache>;
  /** Every request as `METHOD path` (no query), for asserting what was called. */
  requests: string[];
  failNext(failure: Failure): void;
  /** The next create of server `name` ends with its operation Failed (Azure's error `code`). */
  failCreate(name: string, code: string, message: string): void;
  /** The credentials Secret data reaching this fake. */
  credentials(extra?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ms-request-id': randomUUID(), ...headers });
  res.end(text);
};
const armError = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  json(res, status, { error: { code, message } }, headers);

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Azure's documented admin password rule for flexible servers: 8–128 characters of three of four classes. */
function complexEnough(p: string): boolean {
  const classes = [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(p)).length;
  return p.length >= 8 && p.length <= 128 && classes >= 3;
}

/** startFakeAzureArm starts the fake on a port the kernel picks. */
export async function startFakeAzureArm(options: FakeAzureArmOptions = {}): Promise<FakeAzureArm> {
  const steps = options.steps ?? 2;
  const quota = options.quota ?? 20;
  const dir = mkdtempSync(join(tmpdir(), 'fake-azure-arm-'));
  const pki = await ensurePki(dir, '127.0.0.1');
  const caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, pki.caCertPem);
  const clientSecret = `Zx8~${randomBytes(18).toString('base64url')}`;
  const tokens = new Set<string>();
  const operations = new Map<string, Operation>();
  const servers = new Map<string, FakeServer>();
  const caches = new Map<string, FakeCache>();
  const failures: Failure[] = [];
  const failingCreates = new Map<string, { code: string; message: string }>();
  const requests: string[] = [];
  let url = '';

  const newOperation = (provider: string, location: string, onDone?: () => void): string => {
    const id = randomUUID();
    operations.set(id, { status: 'InProgress', stepsLeft: steps, ...(onDone ? { onDone } : {}) });
    return `${url}/subscriptions/${FAKE_SUBSCRIPTION}/providers/${provider}/locations/${location}/azureAsyncOperation/${id}`;
  };
  const stepOperation = (id: string): Operation | undefined => {
    const op = operations.get(id);
    if (op && op.status === 'InProgress') {
      op.stepsLeft -= 1;
      if (op.stepsLeft <= 0) {
        op.status = op.error ? 'Failed' : 'Succeeded';
        if (op.error) op.onFail?.();
        else op.onDone?.();
      }
    }
    return op;
  };
  const operationIdOf = (operationUrl: string) => operationUrl.split('/').pop()!.split('?')[0];
  const asyncHeaders = (operationUrl: string, apiVersion: string) => ({
    'azure-asyncoperation': `${operationUrl}?api-version=${apiVersion}`,
    location: `${operationUrl.replace('azureAsyncOperation', 'operationResults')}?api-version=${apiVersion}`,
    'retry-after': '0',
  });

  const serverView = (s: FakeServer) => ({
    id: `/subscriptions/${FAKE_SUBSCRIPTION}/resourceGroups/${FAKE_RESOURCE_GROUP}/providers/${s.provider}/flexibleServers/${s.name}`,
    name: s.name,
    type: `${s.provider}/flexibleServers`,
    location: s.location,
    ...s.body,
    properties: {
      ...((s.body.properties as Record<string, unknown>) ?? {}),
      administratorLoginPassword: undefined,
      state: s.state,
      fullyQualifiedDomainName: `${s.name}.${s.provider === 'Microsoft.DBforMySQL' ? 'mysql' : 'postgres'}.database.azure.com`,
    },
  });
  const cacheView = (c: FakeCache) => ({
    id: `/subscriptions/${FAKE_SUBSCRIPTION}/resourceGroups/${FAKE_RESOURCE_GROUP}/providers/Microsoft.Cache/redis/${c.name}`,
    name: c.name,
    type: 'Microsoft.Cache/Redis',
    location: c.location,
    ...c.body,
    properties: {
      ...((c.body.properties as Record<string, unknown>) ?? {}),
      provisioningState: c.provisioningState,
      hostName: `${c.name}.redis.cache.windows.net`,
      port: 6379,
      sslPort: 6380,
      redisVersion: '6.0',
    },
  });
  const pollServer = (s: FakeServer) => {
    if (s.state === 'Dropping') {
      s.stepsLeft -= 1;
      if (s.stepsLeft <= 0) servers.delete(`${s.provider}/${s.name}`);
    } else if (s.state === 'Creating') stepOperation(operationIdOf(s.operation));
  };
  const pollCache = (c: FakeCache) => {
    if (c.provisioningState === 'Succeeded') return;
    c.stepsLeft -= 1;
    if (c.stepsLeft > 0) return;
    if (c.provisioningState === 'Deleting') caches.delete(c.name);
    else c.provisioningState = 'Succeeded';
  };

  const handleToken = async (req: IncomingMessage, res: ServerResponse, tenant: string) => {
    const form = new URLSearchParams(await readBody(req));
    if (tenant !== FAKE_TENANT) {
      return json(res, 400, {
        error: 'invalid_request',
        error_description: `AADSTS90002: Tenant '${tenant}' not found.`,
        error_codes: [90002],
      });
    }
    if (form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== FAKE_CLIENT_ID || form.get('client_secret') !== clientSecret) {
      return json(res, 401, {
        error: 'invalid_client',
        error_description: 'AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value.',
        error_codes: [7000215],
      });
    }
    const token = randomBytes(24).toString('base64url');
    tokens.add(token);
    return json(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
  };

  const handleServer = async (req: IncomingMessage, res: ServerResponse, provider: Provider, name: string, rest: string[], apiVersion: string) => {
    const key = `${provider}/${name}`;
    const s = servers.get(key);
    if (rest.length >= 2 && rest[0] === 'databases') {
      if (!s || s.state !== 'Ready') return armError(res, 404, 'ResourceNotFound', `The Resource '${provider}/flexibleServers/${name}' was not found.`);
      const dbName = rest[1];
      const db = s.databases.get(dbName);
      if (req.method === 'GET') {
        // A database exists once its create operation has succeeded; every GET moves the operation on.
        if (!db || stepOperation(operationIdOf(db.operation))?.status !== 'Succeeded')
          return armError(res, 404, 'ResourceNotFound', `Database '${dbName}' was not found.`);
        return json(res, 200, { name: dbName, type: `${provider}/flexibleServers/databases`, ...db.body });
      }
      if (req.method === 'PUT') {
        const body = JSON.parse((await readBody(req)) || '{}') as Record<string, unknown>;
        if (!/^[A-Za-z0-9_-]{1,63}$/.test(dbName)) return armError(res, 400, 'InvalidParameter', `The database name '${dbName}' is not valid.`);
        const operation = db?.operation ?? newOperation(provider, s.location);
        if (!db) s.databases.set(dbName, { operation, body });
        return json(res, 201, undefined, asyncHeaders(operation, apiVersion));
      }
      if (req.method === 'DELETE') {
        s.databases.delete(dbName);
        return json(res, 204, undefined);
      }
    }
    if (rest.length > 0) return armError(res, 404, 'NotFound', 'no such sub-resource in the fake');
    if (req.method === 'GET') {
      if (s) pollServer(s);
      const now = servers.get(key);
      if (!now || now.state === 'Creating')
        return armError(
          res,
          404,
          'ResourceNotFound',
          `The Resource '${provider}/flexibleServers/${name}' under resource group '${FAKE_RESOURCE_GROUP}' was not found.`,
        );
      return json(res, 200, serverView(now));
    }
    if (req.method === 'PUT' || req.method === 'PATCH') {
      const body = JSON.parse((await readBody(req)) || '{}') as Record<string, unknown>;
      const props = (body.properties ?? {}) as Record<string, unknown>;
      const sku = (body.sku ?? {}) as Record<string, unknown>;
      if (s?.state === 'Dropping') return armError(res, 409, 'Conflict', `The server '${name}' is being deleted; try again after it is gone.`);
      if (s?.state === 'Creating') return json(res, 201, serverView(s), asyncHeaders(s.operation, apiVersion));
      if (s) {
        // An update of a Ready server: sku and storage.
        if (sku.name !== undefined && !PG_SKUS.has(String(sku.name)))
          return armError(res, 400, 'InvalidParameter', `The sku '${String(sku.name)}' is not supported.`);
        s.body = {
          ...s.body,
          ...(body.sku ? { sku: body.sku } : {}),
          properties: { ...(s.body.properties as object), ...props, administratorLoginPassword: undefined },
        };
        const operation = newOperation(provider, s.location);
        stepOperation(operationIdOf(operation));
        return json(res, 202, undefined, asyncHeaders(operation, apiVersion));
      }
      const location = String(body.location ?? '');
      if (!LOCATIONS.has(location))
        return armError(res, 400, 'LocationIsOfferRestricted', `Subscriptions are restricted from provisioning in location '${location}'.`);
      if (!PG_SKUS.has(String(sku.name)))
        return armError(res, 400, 'InvalidParameter', `The sku '${String(sku.name)}' is not supported in location '${location}'.`);
      if (typeof props.administratorLogin !== 'string' || !/^[A-Za-z][A-Za-z0-9_]{0,62}$/.test(props.administratorLogin))
        return armError(res, 400, 'InvalidParameter', 'The administrator login is not valid.');
      const password = String(props.administratorLoginPassword ?? '');
      if (!complexEnough(password)) return armError(res, 400, 'PasswordNotComplex', 'The password does not meet the complexity requirements.');
      if (servers.size + caches.size >= quota)
        return armError(res, 400, 'QuotaExceeded', `Operation results in exceeding quota limits of Servers. Maximum allowed: ${quota}.`);
      const created: FakeServer = {
        provider,
        name,
        location,
        body: { sku: body.sku, tags: body.tags, properties: { ...props, administratorLoginPassword: undefined } },
        state: 'Creating',
        stepsLeft: steps,
        operation: '',
        adminPassword: password,
        databases: new Map(),
      };
      created.operation = newOperation(provider, location, () => {
        created.state = 'Ready';
      });
      const failing = failingCreates.get(name);
      if (failing) {
        failingCreates.delete(name);
        const op = operations.get(operationIdOf(created.operation))!;
        op.error = failing;
        op.onFail = () => servers.delete(key);
      }
      servers.set(key, created);
      return json(res, 201, { ...serverView(created), properties: { state: 'Creating' } }, asyncHeaders(created.operation, apiVersion));
    }
    if (req.method === 'DELETE') {
      if (!s || s.state === 'Creating') {
        if (s) servers.delete(key);
        return json(res, 204, undefined);
      }
      if (s.state !== 'Dropping') {
        s.state = 'Dropping';
        s.stepsLeft = steps;
        s.operation = newOperation(provider, s.location, () => servers.delete(key));
      }
      return json(res, 202, undefined, asyncHeaders(s.operation, apiVersion));
    }
    return armError(res, 405, 'MethodNotAllowed', `${req.method ?? ''} is not allowed here`);
  };

  const handleCache = async (req: IncomingMessage, res: ServerResponse, name: string, rest: string[]) => {
    const c = caches.get(name);
    if (rest[0] === 'listKeys' && req.method === 'POST') {
      if (!c) return armError(res, 404, 'ResourceNotFound', `The Resource 'Microsoft.Cache/redis/${name}' was not found.`);
      return json(res, 200, { primaryKey: c.primaryKey, secondaryKey: c.secondaryKey });
    }
    if (rest.length > 0) return armError(res, 404, 'NotFound', 'no such sub-resource in the fake');
    if (req.method === 'GET') {
      if (c) pollCache(c);
      const now = caches.get(name);
      if (!now)
        return armError(
          res,
          404,
          'ResourceNotFound',
          `The Resource 'Microsoft.Cache/redis/${name}' under resource group '${FAKE_RESOURCE_GROUP}' was not found.`,
        );
      return json(res, 200, cacheView(now));
    }
    if (req.method === 'PUT' || req.method === 'PATCH') {
      const body = JSON.parse((await readBody(req)) || '{}') as Record<string, unknown>;
      const props = (body.properties ?? {}) as Record<string, unknown>;
      const sku = (props.sku ?? {}) as Record<string, unknown>;
      if (c?.provisioningState === 'Deleting') return armError(res, 409, 'Conflict', `The cache '${name}' is being deleted.`);
      if (!REDIS_SKUS.has(String(sku.name)) || typeof sku.capacity !== 'number' || !/^[CP]$/.test(String(sku.family)))
        return armError(res, 400, 'InvalidParameter', 'The sku name, family or capacity is not valid.');
      if (c) {
        c.body = { ...c.body, properties: { ...(c.body.properties as object), ...props } };
        if (c.provisioningState === 'Succeeded') {
          c.provisioningState = 'Updating';
          c.stepsLeft = steps;
        }
        return json(res, 200, cacheView(c));
      }
      const location = String(body.location ?? '');
      if (!LOCATIONS.has(location))
        return armError(res, 400, 'LocationIsOfferRestricted', `Subscriptions are restricted from provisioning in location '${location}'.`);
      if (servers.size + caches.size >= quota)
        return armError(res, 400, 'QuotaExceeded', `Operation results in exceeding quota limits of Caches. Maximum allowed: ${quota}.`);
      const created: FakeCache = {
        name,
        location,
        body: { tags: body.tags, properties: props },
        provisioningState: 'Creating',
        stepsLeft: steps,
        primaryKey: randomBytes(32).toString('base64'),
        secondaryKey: randomBytes(32).toString('base64'),
      };
      caches.set(name, created);
      return json(res, 201, cacheView(created));
    }
    if (req.method === 'DELETE') {
      if (!c) return json(res, 204, undefined);
      c.provisioningState = 'Deleting';
      c.stepsLeft = steps;
      return json(res, 202, undefined, {
        location: `${url}/subscriptions/${FAKE_SUBSCRIPTION}/resourceGroups/${FAKE_RESOURCE_GROUP}/providers/Microsoft.Cache/redis/${name}`,
        'retry-after': '0',
      });
    }
    return armError(res, 405, 'MethodNotAllowed', `${req.method ?? ''} is not allowed here`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', url);
    const path = u.pathname;
    requests.push(`${req.method ?? ''} ${path}`);
    const parts = path
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent);
    // Entra ID.
    if (parts.length === 4 && parts[1] === 'v2.0' && parts[2] === '.well-known' && parts[3] === 'openid-configuration') {
      const t = parts[0];
      return json(res, 200, {
        token_endpoint: `${url}/${t}/oauth2/v2.0/token`,
        authorization_endpoint: `${url}/${t}/oauth2/v2.0/authorize`,
        device_authorization_endpoint: `${url}/${t}/oauth2/v2.0/devicecode`,
        end_session_endpoint: `${url}/${t}/oauth2/v2.0/logout`,
        issuer: `${url}/${t}/v2.0`,
        jwks_uri: `${url}/${t}/discovery/v2.0/keys`,
        response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
        scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
      });
    }
    if (parts.length === 4 && parts[1] === 'oauth2' && parts[2] === 'v2.0' && parts[3] === 'token' && req.method === 'POST') {
      return handleToken(req, res, parts[0]);
    }
    const failure = failures.find((f) => (!f.method || f.method === req.method) && (!f.path || path.includes(f.path)));
    if (failure) {
      failure.times = (failure.times ?? 1) - 1;
      if (failure.times <= 0) failures.splice(failures.indexOf(failure), 1);
      return armError(res, failure.status, failure.code, failure.message, failure.headers);
    }
    // ARM.
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !tokens.has(auth.slice(7))) return armError(res, 401, 'InvalidAuthenticationToken', 'The access token is invalid.');
    if (parts[0] !== 'subscriptions') return armError(res, 404, 'NotFound', `no route ${path}`);
    if (parts[1] !== FAKE_SUBSCRIPTION) return armError(res, 404, 'SubscriptionNotFound', `The subscription '${parts[1]}' could not be found.`);
    const apiVersion = u.searchParams.get('api-version') ?? '';
    if (apiVersion === '')
      return armError(res, 400, 'MissingApiVersionParameter', 'The api-version query parameter (?api-version=) is required for all requests.');
    // /subscriptions/{s}/providers/{p}/locations/{l}/azureAsyncOperation|operationResults/{id}
    if (parts[2] === 'providers' && parts[4] === 'locations' && (parts[6] === 'azureAsyncOperation' || parts[6] === 'operationResults')) {
      const op = stepOperation(parts[7]);
      if (!op) return armError(res, 404, 'OperationNotFound', 'no such operation');
      if (parts[6] === 'operationResults')
        return json(res, op.status === 'InProgress' ? 202 : 200, undefined, op.status === 'InProgress' ? { 'retry-after': '0' } : {});
      return json(res, 200, { name: parts[7], status: op.status, ...(op.error ? { error: op.error } : {}) });
    }
    if (parts[2] !== 'resourceGroups' || parts[3] === undefined) return armError(res, 404, 'NotFound', `no route ${path}`);
    if (parts[3].toLowerCase() !== FAKE_RESOURCE_GROUP) return armError(res, 404, 'ResourceGroupNotFound', `Resource group '${parts[3]}' could not be found.`);
    const provider = parts[5];
    if (parts[4] !== 'providers') return armError(res, 404, 'NotFound', `no route ${path}`);
    if ((provider === 'Microsoft.DBforPostgreSQL' || provider === 'Microsoft.DBforMySQL') && parts[6] === 'flexibleServers') {
      if (parts[7] === undefined) {
        if (req.method !== 'GET') return armError(res, 405, 'MethodNotAllowed', 'list is GET');
        return json(res, 200, { value: [...servers.values()].filter((s) => s.provider === provider && s.state !== 'Creating').map(serverView) });
      }
      return handleServer(req, res, provider, parts[7], parts.slice(8), apiVersion);
    }
    if (provider === 'Microsoft.Cache' && parts[6]?.toLowerCase() === 'redis') {
      if (parts[7] === undefined) return json(res, 200, { value: [...caches.values()].map(cacheView) });
      return handleCache(req, res, parts[7], parts.slice(8));
    }
    return armError(res, 400, 'NoRegisteredProviderFound', `No registered resource provider found for '${provider ?? ''}'.`);
  };

  const server: Server = createServer({ key: pki.serverKeyPem, cert: pki.serverCertPem }, (req, res) => {
    handle(req, res).catch((err: unknown) => armError(res, 500, 'InternalServerError', String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const agent = new Agent({ ca: pki.caCertPem, keepAlive: false });
  const base = createDefaultHttpClient();
  const httpClient: HttpClient = {
    sendRequest(request) {
      request.agent = agent;
      return base.sendRequest(request);
    },
  };

  return {
    url,
    caPem: pki.caCertPem,
    caFile,
    clientSecret,
    httpClient,
    servers,
    caches,
    requests,
    failNext(failure) {
      failures.push({ ...failure });
    },
    failCreate(name, code, message) {
      failingCreates.set(name, { code, message });
    },
    credentials(extra = {}) {
      return {
        tenantId: FAKE_TENANT,
        clientId: FAKE_CLIENT_ID,
        clientSecret,
        subscriptionId: FAKE_SUBSCRIPTION,
        resourceGroup: FAKE_RESOURCE_GROUP,
        armEndpoint: url,
        authorityHost: url,
        ...extra,
      };
    },
    async stop() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
