/**
 * The `gcp` provider's check of a Provider: its spec names a Google Cloud region (when it
 * names one); its credentials Secret has a usable form (credentials.ts, without the SDKs); and
 * both services answer a cheap authenticated call — Pub/Sub lists one topic of the project,
 * Spanner lists one instance configuration. Ready=False reasons: InvalidSpec,
 * InvalidCredentials, Unreachable, TimedOut, AuthenticationFailed, Forbidden, NotFound,
 * Throttled, InvalidArgument, RequestFailed. Messages name keys and services, never a value of
 * the Secret. The SDKs are loaded only once the spec and the Secret have passed.
 */
import { isPlainObject, type KObject } from '../../machinery/object.js';
import { failedCheck, type ProviderCheck, type ProviderCheckContext } from '../spi.js';
import { CredentialsError, gcpCredentialsFrom, type GcpCredentials } from './credentials.js';
import { bounded, GcpError, gcpError } from './errors.js';
import { isGcpRegion } from './price-table.js';

/** How long each check call may take (gRPC would wait minutes for an endpoint that never answers). */
export const CHECK_CALL_MS = 15_000;
/** The check's calls are not retried by the SDK: a refused connection is reported as Unreachable at once (the next check runs within a minute). */
const NO_RETRY = { retryCodes: [] as number[] };

/** providerSpecProblem says what is wrong with a gcp Provider's spec.region, or returns undefined. */
export function providerSpecProblem(provider: KObject): string | undefined {
  const spec = isPlainObject(provider.spec) ? provider.spec : {};
  const region = spec.region;
  if (typeof region === 'string' && region !== '' && !isGcpRegion(region)) {
    return `spec.region "${region}" is not a Google Cloud region: want a region name such as us-central1, europe-west1 or asia-east1`;
  }
  return undefined;
}

/** specProject is the Provider's spec.project, if it names one. */
export function specProject(provider: KObject | undefined): string | undefined {
  const spec = provider && isPlainObject(provider.spec) ? provider.spec : {};
  return typeof spec.project === 'string' && spec.project !== '' ? spec.project : undefined;
}

/** checkGcp is the module's `check`. */
export async function checkGcp(provider: KObject, context: ProviderCheckContext): Promise<ProviderCheck> {
  const specProblem = providerSpecProblem(provider);
  if (specProblem) return { ready: false, reason: 'InvalidSpec', message: specProblem };
  let credentials: GcpCredentials;
  try {
    credentials = gcpCredentialsFrom(context.credentials, specProject(provider));
  } catch (err) {
    if (err instanceof CredentialsError) return { ready: false, reason: 'InvalidCredentials', message: err.message };
    throw err;
  }
  const signal = context.signal;
  signal?.throwIfAborted();
  const { pubSubOf, spannerOf } = await import('./clients.js');
  const pubsub = pubSubOf(credentials);
  const spanner = spannerOf(credentials);
  try {
    try {
      await bounded(pubsub.getTopics({ pageSize: 1, autoPaginate: false, gaxOpts: { timeout: CHECK_CALL_MS, retry: NO_RETRY } }), CHECK_CALL_MS, signal);
    } catch (err) {
      throw gcpError(err, `list the Pub/Sub topics of project ${credentials.projectId}`);
    }
    try {
      await bounded(
        spanner.getInstanceConfigs({ pageSize: 1, gaxOptions: { timeout: CHECK_CALL_MS, autoPaginate: false, retry: NO_RETRY } }),
        CHECK_CALL_MS,
        signal,
      );
    } catch (err) {
      throw gcpError(err, `list the Spanner instance configurations of project ${credentials.projectId}`);
    }
  } catch (err) {
    if (err instanceof GcpError) return failedCheck(err);
    throw err;
  } finally {
    await pubsub.close().catch(() => undefined);
    await spanner.close().catch(() => undefined);
  }
  const emulated = [credentials.pubsub.emulator ? 'Pub/Sub' : '', credentials.spanner.emulator ? 'Spanner' : ''].filter((x) => x !== '');
  const how = emulated.length > 0 ? ` (emulated: ${emulated.join(' and ')}, no token needed)` : ' and the service-account key authenticates';
  return { ready: true, message: `Pub/Sub and Spanner answer for project ${credentials.projectId}${how}` };
}
