/**
 * The connection Secret of an Exclusive concrete resource: the raw details its provider
 * returned, in the resource's own namespace, owned (as controller) by the resource so it
 * goes when the resource goes. The binder reads it to publish the claim's formatted Secret.
 */
import { builtinRefs, type Client } from '../../client/types.js';
import { isApiError, isNotFound } from '../../machinery/errors.js';
import type { KObject, OwnerReference } from '../../machinery/object.js';
import { deepEqual, isPlainObject } from '../../machinery/object.js';
import type { ConnectionDetails } from '../../providers/spi.js';

/** The Secret type of connection Secrets. */
export const CONNECTION_SECRET_TYPE = 'connection.conductor.io/v1alpha1';

/** The field selector of connection Secrets, for informers that cache only those. */
export const CONNECTION_SECRET_SELECTOR = `type=${CONNECTION_SECRET_TYPE}`;

/** A SecretLookup answers from a cache: the Secret, or undefined when the cache does not hold it (then the API is asked). */
export type SecretLookup = (namespace: string, name: string) => KObject | undefined;

/** A PublishResult says what publishing did to the Secret. */
export type PublishResult = 'Created' | 'Updated' | 'Unchanged';

/** controllerReference is the ownerReference that makes `owner` the controller of an object. */
export function controllerReference(owner: KObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** encodeSecretData turns connection details into a Secret's data (base64 values). */
export function encodeSecretData(details: ConnectionDetails): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(details)) data[k] = Buffer.from(v, 'utf8').toString('base64');
  return data;
}

/**
 * publishConnectionSecret writes `details` into the Secret `secretName` in the resource's
 * namespace: created when absent; when present it must be controlled by this resource (same
 * uid), and its data is replaced by exactly the given keys. Writes are compare-and-swap, so
 * a concurrent change surfaces as a 409 Conflict for the caller to retry. It throws when
 * the Secret belongs to something else rather than take it over.
 */
export async function publishConnectionSecret(
  client: Client,
  resource: KObject,
  secretName: string,
  details: ConnectionDetails,
  fieldManager: string,
  cached?: SecretLookup,
): Promise<PublishResult> {
  const namespace = resource.metadata.namespace ?? '';
  const ref = builtinRefs.secrets;
  const data = encodeSecretData(details);
  const owner = controllerReference(resource);
  const create = () =>
    client.create(
      ref,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secretName, namespace, ownerReferences: [owner] },
        type: CONNECTION_SECRET_TYPE,
        data,
      },
      { fieldManager },
    );
  // A cached copy may be stale: a write from it is compare-and-swap, so staleness is a 409 to retry.
  let existing: KObject | undefined = cached?.(namespace, secretName);
  if (!existing && cached) {
    // Not in the cache: most likely a first publish, so create without reading first; a
    // Secret the cache has not seen yet answers AlreadyExists and is read below.
    try {
      await create();
      return 'Created';
    } catch (err) {
      if (!(isApiError(err) && err.reason === 'AlreadyExists')) throw err;
    }
  }
  if (!existing) {
    try {
      existing = await client.get<KObject>(ref, secretName, namespace);
    } catch (err) {
      if (!isNotFound(err)) throw new Error(`cannot read connection Secret ${namespace}/${secretName}: ${(err as Error).message}`, { cause: err });
    }
  }
  if (!existing) {
    await create();
    return 'Created';
  }
  const controller = existing.metadata.ownerReferences?.find((r) => r.controller);
  if (!controller || controller.uid !== owner.uid) {
    const holder = controller ? `is controlled by ${controller.kind} ${controller.name}` : 'has no controller';
    throw new Error(
      `connection Secret ${namespace}/${secretName} already exists and ${holder}: want it controlled by ${resource.kind} ${resource.metadata.name}; ` +
        'choose another spec.writeConnectionSecretToRef.name or delete that Secret',
    );
  }
  const current = isPlainObject(existing.data) ? existing.data : {};
  if (deepEqual(current, data)) return 'Unchanged';
  await client.update(ref, { ...existing, data }, { fieldManager });
  return 'Updated';
}
