/**
 * The `azure` provider's check of a Provider: its credentials Secret has a usable form
 * (credentials.ts), and both the blob and the queue service of the account answer a signed
 * request (Get Service Properties) — which proves the endpoints reach the account and the key
 * authenticates. Ready=False reasons: InvalidCredentials, Unreachable, AuthenticationFailed,
 * Forbidden, AccountNotFound, Throttled, RequestFailed. Messages name keys and services, never
 * a value of the Secret.
 */
import type { KObject } from '../../machinery/object.js';
import type { ProviderCheck, ProviderCheckContext } from '../spi.js';
import { azureCredentialsFrom, CredentialsError, type AzureCredentials } from './credentials.js';
import { AzureError, azureError } from './errors.js';
import { blobServiceOf, queueServiceOf } from './service-clients.js';

/** checkAzure is the module's `check`. */
export async function checkAzure(_provider: KObject, context: ProviderCheckContext): Promise<ProviderCheck> {
  let credentials: AzureCredentials;
  try {
    credentials = azureCredentialsFrom(context.credentials);
  } catch (err) {
    if (err instanceof CredentialsError) return { ready: false, reason: 'InvalidCredentials', message: err.message };
    throw err;
  }
  const signal = context.signal;
  try {
    try {
      await blobServiceOf(credentials.storage).service.getProperties({ abortSignal: signal });
    } catch (err) {
      throw azureError(err, 'reach the blob service of the storage account');
    }
    try {
      await queueServiceOf(credentials.storage).service.getProperties({ abortSignal: signal });
    } catch (err) {
      throw azureError(err, 'reach the queue service of the storage account');
    }
  } catch (err) {
    if (err instanceof AzureError) return { ready: false, reason: err.reason, message: err.message };
    throw err;
  }
  const unused = credentials.servicePrincipal ? '; the service principal (tenantId, clientId, clientSecret) is well-formed but not yet used' : '';
  return { ready: true, message: `the blob and queue services of the storage account answer and the account key authenticates${unused}` };
}
