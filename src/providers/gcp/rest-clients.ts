/**
 * The REST clients of one gcp Provider's credentials: Cloud SQL Admin v1 and Memorystore for
 * Redis v1 (google-gax clients on their REST transport, `fallback: 'rest'`) and Cloud Storage.
 * For an emulator endpoint (plain http to this machine: a test's fake) a client calls it over
 * plain http with no token — the gax clients through an auth client that adds no header, the
 * Storage client through its custom-endpoint mode, which sends none — never through
 * process.env. For Google's endpoints every client signs with the Secret's service-account key.
 */
import { v1 as redisV1 } from '@google-cloud/redis';
import { v1 as sqlV1 } from '@google-cloud/sql';
import type { ClientOptions } from 'google-gax';
import { Storage } from '@google-cloud/storage';
import { keyFor, type GcpCredentials, type ServiceEndpoint } from './credentials.js';
import { ONE_ATTEMPT } from './one-attempt.js';

/** What google-gax's REST transport asks of an auth client: headers and a fetch. */
interface RestAuth {
  universeDomain: string;
  getRequestHeaders(): Promise<Headers>;
  fetch(url: string, init: { method?: string; headers?: Headers; body?: string | Uint8Array; signal?: AbortSignal }): Promise<Response>;
}

/** noTokens is the auth client of an emulator: no Authorization header, plain fetch. */
const noTokens: RestAuth = {
  universeDomain: 'googleapis.com',
  getRequestHeaders: () => Promise.resolve(new Headers()),
  fetch: (url, init) =>
    fetch(url, {
      ...(init.method ? { method: init.method } : {}),
      ...(init.headers ? { headers: init.headers } : {}),
      ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : new Uint8Array(init.body) } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    }),
};

function gaxOptions(c: GcpCredentials, e: ServiceEndpoint, secretKey: string): ClientOptions {
  const key = keyFor(c, e, secretKey);
  return {
    fallback: 'rest' as const,
    apiEndpoint: e.host,
    port: e.port,
    protocol: e.emulator ? 'http' : 'https',
    universeDomain: 'googleapis.com',
    // One attempt per call: the reconciler retries.
    clientConfig: ONE_ATTEMPT,
    ...(key
      ? { credentials: { client_email: key.client_email, private_key: key.private_key }, projectId: c.projectId }
      : { authClient: noTokens as unknown as ClientOptions['authClient'] }),
  };
}

/** The Cloud SQL Admin clients a CloudSQLInstance uses; `close()` them when done. */
export interface SqlClients {
  instances: sqlV1.SqlInstancesServiceClient;
  databases: sqlV1.SqlDatabasesServiceClient;
  users: sqlV1.SqlUsersServiceClient;
  close(): Promise<void>;
}

/** sqlClientsOf returns the Cloud SQL Admin clients of the project. */
export function sqlClientsOf(c: GcpCredentials): SqlClients {
  const options = gaxOptions(c, c.sql, 'sqlEndpoint');
  const instances = new sqlV1.SqlInstancesServiceClient(options);
  const databases = new sqlV1.SqlDatabasesServiceClient(options);
  const users = new sqlV1.SqlUsersServiceClient(options);
  return {
    instances,
    databases,
    users,
    close: async () => {
      await Promise.all([instances.close(), databases.close(), users.close()]).catch(() => undefined);
    },
  };
}

/** redisClientOf returns a Memorystore for Redis client of the project; `close()` it when done. */
export function redisClientOf(c: GcpCredentials): redisV1.CloudRedisClient {
  return new redisV1.CloudRedisClient(gaxOptions(c, c.redis, 'redisEndpoint'));
}

/** storageOf returns a Cloud Storage client of the project. */
export function storageOf(c: GcpCredentials): Storage {
  const e = c.storage;
  const key = keyFor(c, e, 'storageEndpoint');
  const host = e.host.includes(':') ? `[${e.host}]` : e.host;
  return new Storage({
    projectId: c.projectId,
    ...(e.emulator ? { apiEndpoint: `http://${host}:${e.port}`, useAuthWithCustomEndpoint: false } : {}),
    ...(!e.emulator && e.host !== 'storage.googleapis.com' ? { apiEndpoint: `https://${host}:${e.port}`, useAuthWithCustomEndpoint: true } : {}),
    ...(key ? { credentials: { client_email: key.client_email, private_key: key.private_key } } : {}),
    // A bucket call is retried by Conductor's reconciler, not for minutes inside one call.
    retryOptions: { autoRetry: false },
  });
}
