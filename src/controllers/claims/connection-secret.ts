/**
 * Publishes a claim's connection details into its namespace: a Secret with every key and a
 * ConfigMap with the keys that are not secret, both owned by the claim (so they go with it).
 */
import type { Client } from '../../client/types.js';
import { builtinRefs } from '../../client/types.js';
import { isApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { deepEqual } from '../../machinery/object.js';
import { CONNECTION_SECRET_TYPE, controllerReference } from '../managed/connection-secret.js';

/** Keys that never go into the ConfigMap. */
const SECRET_KEYS = new Set(['password', 'uri', 'url', 'secretAccessKey', 'token', 'connectionString']);

export async function publishConnection(
  client: Client,
  claim: KObject,
  secretName: string,
  details: Record<string, string>,
  documentedKeys?: readonly string[],
  /** The claim was just bound, so its Secret and ConfigMap most likely do not exist yet: create first. */
  fresh = false,
): Promise<void> {
  const namespace = claim.metadata.namespace!;
  const owner = [controllerReference(claim)];
  const keys = documentedKeys && documentedKeys.length > 0 ? documentedKeys.filter((k) => k in details) : Object.keys(details);
  const data = Object.fromEntries(keys.map((k) => [k, Buffer.from(details[k]).toString('base64')]));
  const plain = Object.fromEntries(keys.filter((k) => !SECRET_KEYS.has(k)).map((k) => [k, details[k]]));
  await Promise.all([
    upsertOwned(client, builtinRefs.secrets, namespace, secretName, { type: CONNECTION_SECRET_TYPE, data }, owner, (o) => deepEqual(o.data, data), fresh),
    upsertOwned(client, builtinRefs.configmaps, namespace, secretName, { data: plain }, owner, (o) => deepEqual(o.data ?? {}, plain), fresh),
  ]);
}

/**
 * An OwnershipConflictError is a Secret or ConfigMap to be written that exists and is not
 * controlled by the object writing it (a developer's own Secret, another claim's): it is left
 * as it is.
 */
export class OwnershipConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OwnershipConflictError';
  }
}

/**
 * upsertOwned writes a Secret or ConfigMap owned by `ownerReferences`: created when absent
 * (first, without a read, when `createFirst`), replaced by `body` when present and not `same`
 * — but only when the existing one is controlled by the same owner (else an
 * OwnershipConflictError): a claim naming another object's Secret in
 * writeConnectionSecretToRef must not overwrite it.
 */
export async function upsertOwned(
  client: Client,
  ref: typeof builtinRefs.secrets,
  namespace: string,
  name: string,
  body: Record<string, unknown>,
  ownerReferences: KObject['metadata']['ownerReferences'],
  same: (existing: KObject) => boolean,
  createFirst: boolean,
): Promise<void> {
  const create = () =>
    client.create(
      ref,
      { apiVersion: 'v1', kind: ref.kind, metadata: { name, namespace, ownerReferences, labels: { 'conductor.io/connection': 'true' } }, ...body },
      { fieldManager: 'conductor-claim-controller' },
    );
  if (createFirst) {
    try {
      await create();
      return;
    } catch (err) {
      if (!(isApiError(err) && err.reason === 'AlreadyExists')) throw err;
    }
  }
  let existing: KObject | undefined;
  try {
    existing = await client.get<KObject>(ref, name, namespace);
  } catch (err) {
    if (!(isApiError(err) && err.code === 404)) throw err;
  }
  if (!existing) {
    await create();
    return;
  }
  const want = ownerReferences?.find((r) => r.controller);
  const have = existing.metadata.ownerReferences?.find((r) => r.controller);
  if (want && have?.uid !== want.uid) {
    const holder = have ? `is controlled by ${have.kind} ${have.name}` : 'is not controlled by Conductor';
    throw new OwnershipConflictError(`${ref.kind} ${namespace}/${name} already exists and ${holder}: want it controlled by ${want.kind} ${want.name}`);
  }
  if (same(existing)) return;
  await client.update(ref, { ...existing, ...body }, { fieldManager: 'conductor-claim-controller' });
}
