/**
 * The SDK clients of one gcp Provider's credentials. For an emulator endpoint (plain http to
 * this machine) each client is put in emulator mode through its own options — insecure gRPC
 * channel, no tokens, the universe domain given so that no credentials or metadata server are
 * looked for — never through process.env, which would change every client in the process.
 * For Google's endpoints the clients sign with the service-account key of the Secret. Every
 * call makes one attempt (`ONE_ATTEMPT_OPTIONS`): the reconciler retries.
 */
import { PubSub, type ClientConfig } from '@google-cloud/pubsub';
import { Spanner, type SpannerOptions } from '@google-cloud/spanner';
import { credentials as grpcCredentials } from '@grpc/grpc-js';
import type { GcpCredentials } from './credentials.js';
import { ONE_ATTEMPT_OPTIONS } from './one-attempt.js';

const keyOptions = (c: GcpCredentials) => (c.key ? { credentials: { client_email: c.key.client_email, private_key: c.key.private_key } } : {});
/** Stops google-auth-library asking the metadata server which universe it is in. */
const universe = { clientOptions: { universeDomain: 'googleapis.com' } };

/** pubSubOf returns a Pub/Sub client of the project; `close()` it when done. */
export function pubSubOf(c: GcpCredentials): PubSub {
  const e = c.pubsub;
  const options: ClientConfig = {
    projectId: c.projectId,
    apiEndpoint: `${e.host}:${e.port}`,
    emulatorMode: e.emulator,
    ...ONE_ATTEMPT_OPTIONS,
    ...universe,
    ...(e.emulator ? {} : keyOptions(c)),
  };
  return new PubSub(options);
}

/** spannerOf returns a Spanner client of the project; `close()` it when done. */
export function spannerOf(c: GcpCredentials): Spanner {
  const e = c.spanner;
  const options: SpannerOptions = {
    projectId: c.projectId,
    servicePath: e.host,
    port: e.port,
    // Conductor's admin calls export no metrics to Cloud Monitoring.
    disableBuiltInMetrics: true,
    ...ONE_ATTEMPT_OPTIONS,
    ...universe,
    ...(e.emulator ? { sslCreds: grpcCredentials.createInsecure() } : keyOptions(c)),
  };
  return new Spanner(options);
}
