/**
 * Every google-gax client of the gcp provider makes one attempt per call (ONE_ATTEMPT): the
 * reconciler retries with its own backoff or the cloud's Retry-After. Against local servers
 * that answer everything "unavailable" (mocked: they stand in for a Google endpoint that is
 * down) — gRPC status 14 for Pub/Sub and Spanner, whose list calls the SDKs' defaults retry on
 * it; HTTP 503 for the Cloud SQL Admin and Memorystore REST clients — one call is one request.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startUnavailableGrpc, startUnavailableHttp, type UnavailableServer } from '../../../test/support/unavailable-servers.js';
import { pubSubOf, spannerOf } from './clients.js';
import { gcpCredentialsFrom, type GcpCredentials } from './credentials.js';
import { redisClientOf, sqlClientsOf } from './rest-clients.js';

describe('gcp clients: one attempt per call (mocked: local servers answer "unavailable")', () => {
  let grpc: UnavailableServer;
  let http: UnavailableServer;
  let credentials: GcpCredentials;
  before(async () => {
    grpc = await startUnavailableGrpc();
    http = await startUnavailableHttp();
    credentials = gcpCredentialsFrom({ pubsubEndpoint: grpc.url, spannerEndpoint: grpc.url, sqlEndpoint: http.url, redisEndpoint: http.url }, 'conductor-test');
  });
  after(async () => {
    await grpc?.stop();
    await http?.stop();
  });

  /** requestsOf runs `call`, which must fail, and returns how many requests reached `server`. */
  async function requestsOf(server: UnavailableServer, what: string, call: () => Promise<unknown>): Promise<number> {
    const before = server.requests();
    await assert.rejects(call(), what);
    return server.requests() - before;
  }

  test('Pub/Sub ListTopics and Spanner ListInstanceConfigs: one gRPC call each (their defaults retry UNAVAILABLE)', async () => {
    const pubsub = pubSubOf(credentials);
    const spanner = spannerOf(credentials);
    try {
      assert.equal(await requestsOf(grpc, 'Pub/Sub', () => pubsub.getTopics({ pageSize: 1, autoPaginate: false })), 1);
      assert.equal(await requestsOf(grpc, 'Spanner', () => spanner.getInstanceConfigs({ pageSize: 1, gaxOptions: { autoPaginate: false } })), 1);
    } finally {
      await pubsub.close().catch(() => undefined);
      await spanner.close().catch(() => undefined);
    }
  });

  test('Cloud SQL Admin and Memorystore over REST: one request each (their methods are not retried by default either: this keeps it so)', async () => {
    const sql = sqlClientsOf(credentials);
    const redis = redisClientOf(credentials);
    try {
      assert.equal(await requestsOf(http, 'Cloud SQL', () => sql.instances.get({ project: 'conductor-test', instance: 'x' })), 1);
      assert.equal(await requestsOf(http, 'Memorystore', () => redis.getInstance({ name: 'projects/conductor-test/locations/us-central1/instances/x' })), 1);
    } finally {
      await sql.close();
      await redis.close();
    }
  });
});
