/**
 * A Shared resource remembers each claim's own connection details in a binding Secret beside
 * it (`bindingSecretName`), so a repeated bind hands the provider the same credentials back
 * and a release names the share that was made. A binding from before hashed names kept them
 * under the unhashed `legacyBindingSecretName`; these helpers read, carry over and remove
 * both without touching another claim's.
 */
import { builtinRefs, type Client, type ResourceRef } from '../../client/types.js';
import { isApiError } from '../../machinery/errors.js';
import type { Claim, ConcreteResource } from '../../apis/index.js';
import type { ConnectionDetails } from '../../providers/spi.js';
import { bindingOf, isExclusive } from './binding-check.js';
import { bindingSecretName, legacyBindingSecretName } from './names.js';
import { decodeSecretData } from './provider-access.js';

/** readDetails is the decoded data of a Secret beside `resource`, or undefined when it does not exist. */
export async function readDetails(client: Client, resource: ConcreteResource, name: string): Promise<ConnectionDetails | undefined> {
  try {
    return decodeSecretData(await client.get(builtinRefs.secrets, name, resource.metadata.namespace));
  } catch (err) {
    if (!(isApiError(err) && err.code === 404)) throw err;
    return undefined;
  }
}

/** Whether the claim's binding may predate hashed names: its binding records the old name, or an Exclusive resource (which records none). */
export function mayHaveLegacySecret(resource: ConcreteResource, claim: Claim, legacy: string): boolean {
  return isExclusive(resource) || bindingOf<{ claimRef?: { uid?: string }; secretName?: string }>(resource, claim)?.secretName === legacy;
}

/** Whether a binding of another claim records `legacy` as its Secret (two claims' old names coincided). */
export function legacyNameShared(resource: ConcreteResource, claim: Claim, legacy: string): boolean {
  const bindings = resource.status?.bindings ?? [];
  return bindings.some((b) => b.claimRef?.uid !== claim.metadata.uid && (b.secretName === legacy || b.secretName === undefined));
}

/**
 * recordedDetails are the details last published for the claim's share (its binding Secret,
 * or the one an earlier version named without a hash): they name a share an earlier version
 * made under older names, which the provider then releases instead of a new name.
 */
export async function recordedDetails(client: Client, resource: ConcreteResource, claim: Claim): Promise<ConnectionDetails | undefined> {
  const legacy = legacyBindingSecretName(resource, claim);
  return (
    (await readDetails(client, resource, bindingSecretName(resource, claim))) ??
    (mayHaveLegacySecret(resource, claim, legacy) ? await readDetails(client, resource, legacy) : undefined)
  );
}

/**
 * deleteBindingSecrets removes the claim's binding Secret, and the one an earlier version
 * named without a hash unless another binding of the resource still records that name.
 */
export async function deleteBindingSecrets(client: Client, resource: ConcreteResource, claim: Claim): Promise<void> {
  await deleteIgnoringMissing(client, builtinRefs.secrets, bindingSecretName(resource, claim), resource.metadata.namespace);
  const legacy = legacyBindingSecretName(resource, claim);
  if (mayHaveLegacySecret(resource, claim, legacy) && !legacyNameShared(resource, claim, legacy)) {
    await deleteIgnoringMissing(client, builtinRefs.secrets, legacy, resource.metadata.namespace);
  }
}

/** deleteIgnoringMissing deletes an object; one that is gone already is fine. */
export async function deleteIgnoringMissing(client: Client, ref: ResourceRef, name: string, namespace: string | undefined): Promise<void> {
  try {
    await client.delete(ref, name, { namespace });
  } catch (err) {
    if (!(isApiError(err) && err.code === 404)) throw err;
  }
}
