/**
 * Who the Provider's keys are: STS GetCallerIdentity (with the role assumed, when roleArn is
 * given), or, for an emulator without STS, S3 ListBuckets. Loaded by the check after the
 * Secret has passed, so a Conductor without aws Providers never loads the SDK.
 */
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { clientConfig } from './aws-clients.js';
import type { AwsCredentials } from './credentials.js';
import { awsError } from './errors.js';

/** callerIdentity is the ARN and account the calls are made as. */
export async function callerIdentity(credentials: AwsCredentials, region: string, signal?: AbortSignal): Promise<{ arn: string; account: string }> {
  try {
    const out = await new STSClient(clientConfig(credentials, region, 'sts')).send(new GetCallerIdentityCommand({}), { abortSignal: signal });
    return { arn: out.Arn ?? 'an unnamed identity', account: out.Account ?? 'unknown' };
  } catch (err) {
    throw awsError(err, 'call STS GetCallerIdentity');
  }
}

/** listBuckets counts the buckets the keys can list on the S3 endpoint. */
export async function listBuckets(credentials: AwsCredentials, region: string, signal?: AbortSignal): Promise<number> {
  try {
    const s3 = new S3Client({ ...clientConfig(credentials, region, 's3'), forcePathStyle: true });
    const out = await s3.send(new ListBucketsCommand({}), { abortSignal: signal });
    return out.Buckets?.length ?? 0;
  } catch (err) {
    throw awsError(err, 'list buckets on the S3 endpoint');
  }
}
