/**
 * The ARM half of an azure Provider's check: a token exchange with Entra ID for the service
 * principal, then the cheapest list that proves the subscription, the resource group and a
 * read permission (the first page of the PostgreSQL flexible servers of the resource group).
 * A failure is Ready=False with ArmError's reason; messages never quote a secret.
 */
import { failedCheck, type ProviderCheck } from '../spi.js';
import { armClientsOf, type ArmClientOptions } from './arm-clients.js';
import { ArmError, armError } from './arm-errors.js';
import type { ArmAccess } from './credentials.js';

/** checkArm returns undefined when ARM answers, else the failed check. */
export async function checkArm(access: ArmAccess, options: ArmClientOptions & { signal?: AbortSignal }): Promise<ProviderCheck | undefined> {
  const clients = armClientsOf(access, options);
  try {
    try {
      await clients.credential.getToken(`${access.armEndpoint}/.default`, { abortSignal: options.signal });
    } catch (err) {
      throw armError(err, 'get a token for the service principal');
    }
    try {
      const pages = clients.postgres.servers.listByResourceGroup(access.resourceGroup, { abortSignal: options.signal }).byPage();
      await pages.next();
    } catch (err) {
      throw armError(err, `list the flexible servers of resource group ${access.resourceGroup}`);
    }
  } catch (err) {
    if (err instanceof ArmError) return failedCheck(err);
    throw err;
  }
  return undefined;
}
