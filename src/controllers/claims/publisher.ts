/**
 * A ConnectionPublisher hands a bound claim its connection details (docs/design.md 3.6 point 3) once
 * its resource is ready: the provider's raw details (Exclusive: the resource's own Secret;
 * Shared: this claim's share from `bindClaim`, remembered in a binding Secret beside the
 * resource) formatted by the claim kind's documented keys into a Secret and a ConfigMap in the
 * claim's namespace, owned by the claim — never over another object's. It owns the claim's
 * `Ready` condition: why not ready while the resource is not, Available once published.
 */
import { secondsSince, type ClaimMetrics } from '../metrics.js';
import { builtinRefs, type Client } from '../../client/types.js';
import { isApiError } from '../../machinery/errors.js';
import { deepEqual } from '../../machinery/object.js';
import { MissingConnectionKeysError } from './generic-implementation.js';
import type { Claim, ConcreteResource } from '../../apis/index.js';
import { implementationFor, isSharedClient, type ConnectionDetails } from '../../providers/spi.js';
import { recordEvent } from '../events.js';
import { brokenShareOf } from '../managed/broken-shares.js';
import { controllerReference, encodeSecretData } from '../managed/connection-secret.js';
import { isExclusive } from './binding-check.js';
import { deleteIgnoringMissing, legacyNameShared, mayHaveLegacySecret, readDetails } from './binding-secrets.js';
import type { ClaimCaches, ClaimKindEntry, ConcreteKindEntry } from './claim-caches.js';
import { conditionOf, describeResource, setClaimCondition, statusOf, writeClaimStatus, type ClaimStatusOf, type ReconcileResult } from './claim-status.js';
import { OwnershipConflictError, publishConnection, upsertOwned } from './connection-secret.js';
import { bindingSecretName, connectionSecretName, legacyBindingSecretName } from './names.js';
import { decodeSecretData, type ProviderAccess } from './provider-access.js';
import { ClaimCondition, ClaimReason } from './reasons.js';
import { notReadyReason } from './resource-conditions.js';
import { sameStatusIgnoringTransitionTimes } from '../../machinery/object.js';

/** How long a claim whose Secret name is another object's waits before trying again (a previous claim of that name may still be being collected). */
export const CONFLICT_RETRY_MS = 10_000;

/** How soon a claim whose out-of-process resource has no (complete) connection details looks again (a typed connection Secret it controls wakes it sooner). */
export const DETAILS_RETRY_MS = 5_000;

/** What a claim is told when an out-of-process provider's details are missing or incomplete; undefined for any other error. */
function missingDetails(resource: ConcreteResource, err: unknown): string | undefined {
  const where = describeResource(resource);
  if (err instanceof MissingConnectionKeysError) return `${where} is ready, but ${err.message}`;
  if (isApiError(err) && err.code === 404) {
    const name = resource.spec.writeConnectionSecretToRef?.name || `${resource.metadata.name}-connection`;
    return `${where} is ready, but its connection Secret ${resource.metadata.namespace}/${name} does not exist yet; the provider that reconciles ${resource.kind} writes it`;
  }
  return undefined;
}

/** What a ConnectionPublisher works with. */
export interface PublisherDeps {
  readonly client: Client;
  readonly caches: ClaimCaches;
  readonly access: ProviderAccess;
  /** Where the time from a claim's creation to its first Ready is reported. */
  readonly metrics?: ClaimMetrics;
}

export class ConnectionPublisher {
  constructor(private readonly deps: PublisherDeps) {}

  /**
   * reportNotReady says on the claim why its resource is not ready (Ready=False): a failing
   * `Synced` condition of the resource is carried, with a Warning Event; else it is waiting.
   */
  async reportNotReady(entry: ClaimKindEntry, claim: Claim, resource: ConcreteResource): Promise<void> {
    const old = statusOf(claim);
    const status: ClaimStatusOf = { ...old };
    const why = notReadyReason(resource);
    status.conditions = setClaimCondition(status.conditions, claim, ClaimCondition.Ready, 'False', why.reason, why.message);
    if (sameStatusIgnoringTransitionTimes(old, status)) return;
    await writeClaimStatus(this.deps.client, entry, claim, status);
    if (why.failing) await recordEvent(this.deps.client, claim, 'Warning', why.reason, why.message);
  }

  /**
   * publish writes the claim's Secret and ConfigMap from the ready resource's details and
   * marks the claim Ready. `justBound` (the binding's words) says the claim's binding is in
   * the same status write: its objects most likely do not exist yet, and one Event tells both.
   */
  async publish(entry: ClaimKindEntry, claim: Claim, concrete: ConcreteKindEntry, resource: ConcreteResource, justBound?: string): Promise<ReconcileResult> {
    const { client } = this.deps;
    const old = statusOf(claim);
    const impl = implementationFor(concrete.kind, { group: entry.def.group, kind: entry.def.kind });
    let details: ConnectionDetails;
    try {
      const raw = await this.connectionDetails(concrete, resource, claim);
      details = impl ? impl.formatConnection(raw) : raw;
    } catch (err) {
      // A provider in another process writes the details itself: until it has, say so on the claim.
      const missing = concrete.outOfProcess ? missingDetails(resource, err) : undefined;
      if (!missing) throw err;
      const status: ClaimStatusOf = { ...old, phase: 'Bound' };
      status.conditions = setClaimCondition(status.conditions, claim, ClaimCondition.Ready, 'False', ClaimReason.ConnectionDetailsMissing, missing);
      if (!sameStatusIgnoringTransitionTimes(old, status)) await writeClaimStatus(client, entry, claim, status);
      return { requeueAfterMs: DETAILS_RETRY_MS };
    }
    const secretName = connectionSecretName(claim);
    try {
      // Never published before (just bound, or no connectionSecretRef yet): the Secret and
      // ConfigMap most likely do not exist, so they are created without reading them first.
      await publishConnection(client, claim, secretName, details, impl?.connectionSecretKeys, justBound !== undefined || old.connectionSecretRef === undefined);
    } catch (err) {
      if (!(err instanceof OwnershipConflictError)) throw err;
      // Another object's Secret (the developer's own, another claim's) is never overwritten.
      const status: ClaimStatusOf = { ...old, phase: 'Bound' };
      status.conditions = setClaimCondition(status.conditions, claim, ClaimCondition.Ready, 'False', ClaimReason.ConnectionSecretConflict, err.message);
      if (!sameStatusIgnoringTransitionTimes(old, status)) {
        await writeClaimStatus(client, entry, claim, status);
        await recordEvent(client, claim, 'Warning', ClaimReason.ConnectionSecretConflict, err.message);
      }
      return { requeueAfterMs: CONFLICT_RETRY_MS };
    }
    const status: ClaimStatusOf = { ...old, phase: 'Bound', connectionSecretRef: { name: secretName } };
    status.conditions = setClaimCondition(
      status.conditions,
      claim,
      ClaimCondition.Ready,
      'True',
      ClaimReason.Available,
      `connection details are in Secret ${secretName}`,
    );
    if (sameStatusIgnoringTransitionTimes(old, status)) return;
    await writeClaimStatus(client, entry, claim, status);
    if (this.deps.metrics && conditionOf(old, ClaimCondition.Ready)?.status !== 'True') {
      const age = secondsSince(claim.metadata.creationTimestamp);
      if (age !== undefined) this.deps.metrics.ready(claim.kind, age);
    }
    if (justBound) {
      // Events are best effort (recordEvent never throws): the claim goes on without waiting.
      void recordEvent(client, claim, 'Normal', ClaimReason.Bound, `${justBound}; connection details published to Secret ${secretName}`);
    } else if (conditionOf(old, ClaimCondition.Ready)?.status !== 'True') {
      await recordEvent(client, claim, 'Normal', ClaimReason.Ready, `connection details published to Secret ${secretName}`);
    }
  }

  /** The raw details: the resource's own Secret (Exclusive) or this claim's binding (Shared). */
  async connectionDetails(concrete: ConcreteKindEntry, resource: ConcreteResource, claim: Claim): Promise<ConnectionDetails> {
    const { client, caches, access } = this.deps;
    // A kind that gives each claim its own credentials (a registered shared server) does so
    // even when one claim has the resource to itself.
    if (isExclusive(resource) && concrete.kind.sharing !== 'Shared') {
      const name = resource.spec.writeConnectionSecretToRef?.name || `${resource.metadata.name}-connection`;
      const secret = caches.secrets.store.get(resource.metadata.namespace, name) ?? (await client.get(builtinRefs.secrets, name, resource.metadata.namespace));
      return decodeSecretData(secret);
    }
    // Shared: each claim has its own credentials, kept in a Secret next to the resource so a
    // repeated reconcile hands the provider the same password back.
    const secretName = bindingSecretName(resource, claim);
    let previous = await readDetails(client, resource, secretName);
    // A binding made by an earlier version kept its details under the unhashed name: carry
    // them over (the provider takes them back only for this claim's own user).
    const legacy = legacyBindingSecretName(resource, claim);
    let migrating = false;
    if (!previous && mayHaveLegacySecret(resource, claim, legacy)) {
      previous = await readDetails(client, resource, legacy);
      migrating = previous !== undefined;
    }
    const external = await access.connect(concrete.kind, resource);
    try {
      if (!isSharedClient(external)) throw new Error(`${resource.kind} is Shared but its provider cannot bind claims`);
      const details = await external.bindClaim(resource, claim, previous);
      const broken = brokenShareOf(resource, claim);
      if (broken) {
        void recordEvent(
          client,
          claim,
          'Normal',
          ClaimReason.ShareRepaired,
          `${describeResource(resource)} reported ${broken.missing} missing; recreated with the claim's credentials`,
        );
      }
      if (migrating || !previous || !deepEqual(previous, details)) {
        const data = encodeSecretData(details);
        await upsertOwned(
          client,
          builtinRefs.secrets,
          resource.metadata.namespace!,
          secretName,
          { type: 'Opaque', data },
          [controllerReference(resource)],
          (o) => deepEqual(o.data, data),
          true,
        );
      }
      if (migrating && !legacyNameShared(resource, claim, legacy))
        await deleteIgnoringMissing(client, builtinRefs.secrets, legacy, resource.metadata.namespace);
      return details;
    } finally {
      await external.close?.();
    }
  }
}
