/**
 * The `aws` provider's check of a Provider: its spec names an AWS region (required: every
 * call is regional) and, when it names one, a 12-digit account (spec.project); its credentials
 * Secret has a usable form (credentials.ts); and the keys authenticate — STS GetCallerIdentity
 * (as the role, when roleArn is given), whose account must be spec.project when that is set.
 * An emulator that has no STS (the Secret gives an s3Endpoint but no stsEndpoint) is checked
 * with S3 ListBuckets instead. Ready=False reasons: InvalidSpec, InvalidCredentials,
 * Unreachable, AuthenticationFailed, Forbidden, Throttled, WrongAccount, RequestFailed.
 * Messages name keys and services, never a value of the Secret. The SDK is loaded only once
 * the spec and the Secret have passed.
 */
import { isPlainObject, type KObject } from '../../machinery/object.js';
import { failedCheck, type ProviderCheck, type ProviderCheckContext } from '../spi.js';
import { awsCredentialsFrom, checksWithoutSts, CredentialsError, type AwsCredentials } from './credentials.js';
import { AwsError } from './errors.js';
import { AWS_REGIONS } from './price-table.js';

const ACCOUNT = /^\d{12}$/;

/** providerSpecProblem says what is wrong with an aws Provider's spec.region or spec.project, or returns undefined. */
export function providerSpecProblem(provider: KObject): string | undefined {
  const spec = isPlainObject(provider.spec) ? provider.spec : {};
  const region = spec.region;
  if (typeof region !== 'string' || region === '') return 'spec.region is not set: want the AWS region resources are made in, e.g. us-east-1 or eu-west-1';
  if (!(AWS_REGIONS as readonly string[]).includes(region)) {
    return `spec.region "${region.slice(0, 64)}" is not an AWS region: want a region code such as us-east-1, eu-west-1 or ap-southeast-2`;
  }
  const project = spec.project;
  if (typeof project === 'string' && project !== '' && !ACCOUNT.test(project)) return 'spec.project is not an AWS account ID: want 12 digits';
  if (typeof spec.endpoint === 'string' && spec.endpoint !== '')
    return 'spec.endpoint is not used by aws Providers: put per-service endpoints (s3Endpoint, sqsEndpoint, stsEndpoint, …) in the credentials Secret';
  return undefined;
}

/** checkAws is the module's `check`. */
export async function checkAws(provider: KObject, context: ProviderCheckContext): Promise<ProviderCheck> {
  const specProblem = providerSpecProblem(provider);
  if (specProblem) return { ready: false, reason: 'InvalidSpec', message: specProblem };
  const spec = provider.spec as { region: string; project?: string };
  let credentials: AwsCredentials;
  try {
    credentials = awsCredentialsFrom(context.credentials);
  } catch (err) {
    if (err instanceof CredentialsError) return { ready: false, reason: 'InvalidCredentials', message: err.message };
    throw err;
  }
  context.signal?.throwIfAborted();
  const { callerIdentity, listBuckets } = await import('./identity.js');
  try {
    if (checksWithoutSts(credentials)) {
      const count = await listBuckets(credentials, spec.region, context.signal);
      return {
        ready: true,
        message: `the S3 endpoint answers and the keys authenticate (ListBuckets: ${count} bucket${count === 1 ? '' : 's'}); checked with S3 because the Secret gives no stsEndpoint (an emulator without STS)`,
      };
    }
    const identity = await callerIdentity(credentials, spec.region, context.signal);
    if (spec.project && identity.account !== spec.project) {
      return {
        ready: false,
        reason: 'WrongAccount',
        message: `the keys authenticate as account ${identity.account}, not spec.project ${spec.project}: give keys of that account or correct spec.project`,
      };
    }
    return { ready: true, message: `STS GetCallerIdentity: the keys authenticate as ${identity.arn} in account ${identity.account}` };
  } catch (err) {
    if (err instanceof AwsError) return failedCheck(err);
    throw err;
  }
}
