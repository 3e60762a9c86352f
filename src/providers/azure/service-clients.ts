/**
 * The SDK clients of one storage account, with the options every call shares: one attempt per
 * call (`maxTries: 1`: the reconciler retries with its own backoff or the cloud's Retry-After,
 * and a Provider check on an unreachable endpoint must answer within seconds), and that attempt
 * bounded.
 */
import { BlobServiceClient, StorageSharedKeyCredential as BlobKey } from '@azure/storage-blob';
import { QueueServiceClient, StorageSharedKeyCredential as QueueKey } from '@azure/storage-queue';
import type { StorageAccount } from './credentials.js';

const retryOptions = { maxTries: 1, tryTimeoutInMs: 30_000 };

/** blobServiceOf returns a blob service client of the account, signing with its key. */
export function blobServiceOf(account: StorageAccount): { service: BlobServiceClient; key: BlobKey } {
  const key = new BlobKey(account.accountName, account.accountKey);
  return { service: new BlobServiceClient(account.blobEndpoint, key, { retryOptions }), key };
}

/** queueServiceOf returns a queue service client of the account, signing with its key. */
export function queueServiceOf(account: StorageAccount): { service: QueueServiceClient; key: QueueKey } {
  const key = new QueueKey(account.accountName, account.accountKey);
  return { service: new QueueServiceClient(account.queueEndpoint, key, { retryOptions }), key };
}
