/**
 * The `azure` provider's check of a Provider: its spec names an Azure region (when it names
 * one) and a subscription GUID (when it names one); its credentials Secret has a usable form
 * (credentials.ts); when it holds a storage account, both the blob and the queue service of
 * the account answer a signed request (Get Service Properties) — which proves the endpoints
 * reach the account and the key authenticates; when it holds a service principal, a token
 * exchange and a cheap list in the resource group succeed (arm-check.ts). Ready=False reasons: InvalidSpec, InvalidCredentials, Unreachable,
 * AuthenticationFailed, Forbidden, AccountNotFound, Throttled, RequestFailed, and ARM's
 * SubscriptionNotFound, ResourceGroupNotFound. Messages name
 * keys and services, never a value of the Secret. The SDKs are loaded only once the spec and
 * the Secret have passed.
 */
import { isPlainObject, type KObject } from '../../machinery/object.js';
import { failedCheck, type ProviderCheck, type ProviderCheckContext } from '../spi.js';
import { azureCredentialsFrom, CredentialsError, type AzureCredentials } from './credentials.js';
import { AzureError, azureError } from './errors.js';
import { AZURE_LOCATIONS } from './price-table.js';
import type { ArmClientOptions } from './arm-clients.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** providerSpecProblem says what is wrong with an azure Provider's spec.region or spec.project, or returns undefined. */
export function providerSpecProblem(provider: KObject): string | undefined {
  const spec = isPlainObject(provider.spec) ? provider.spec : {};
  const region = spec.region;
  if (typeof region === 'string' && region !== '' && !(AZURE_LOCATIONS as readonly string[]).includes(region)) {
    return `spec.region "${region}" is not an Azure region: want a location name such as eastus, westeurope or southeastasia`;
  }
  const project = spec.project;
  if (typeof project === 'string' && project !== '' && !GUID.test(project)) {
    return `spec.project "${project}" is not an Azure subscription ID: want a GUID`;
  }
  return undefined;
}

/** checkAzure is the module's `check`: the storage account when the Secret has one, ARM when it has a service principal. */
export async function checkAzure(provider: KObject, context: ProviderCheckContext, options: ArmClientOptions = {}): Promise<ProviderCheck> {
  const specProblem = providerSpecProblem(provider);
  if (specProblem) return { ready: false, reason: 'InvalidSpec', message: specProblem };
  let credentials: AzureCredentials;
  try {
    credentials = azureCredentialsFrom(context.credentials);
  } catch (err) {
    if (err instanceof CredentialsError) return { ready: false, reason: 'InvalidCredentials', message: err.message };
    throw err;
  }
  const signal = context.signal;
  signal?.throwIfAborted();
  const passed: string[] = [];
  if (credentials.storage) {
    const { blobServiceOf, queueServiceOf } = await import('./service-clients.js');
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
      if (err instanceof AzureError) return failedCheck(err);
      throw err;
    }
    passed.push('the blob and queue services of the storage account answer and the account key authenticates');
  }
  if (credentials.arm) {
    const { checkArm } = await import('./arm-check.js');
    const failed = await checkArm(credentials.arm, { signal, ...(options.httpClient ? { httpClient: options.httpClient } : {}) });
    if (failed) return failed;
    passed.push('the service principal gets a token and may list the flexible servers of the resource group');
  }
  return { ready: true, message: passed.join('; ') };
}
