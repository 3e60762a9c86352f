/**
 * A Releaser lets a claim's resource go (docs/design.md 3.6 point 4). A deleted claim (finalizer
 * `conductor.io/claim-protection`) releases the resource that records it by the resource's
 * rebind policy — Retain: Released, never rebound; Delete: the resource is deleted; Recycle:
 * scrubbed, then Available — or, on a Shared resource, the claim's own share by the same
 * policy; then the finalizer goes. A claim whose resource is gone or no longer records it is
 * marked Lost. Only what a resource's own record binds is ever released, whatever the
 * claim's status names.
 */
import type { Client } from '../../client/types.js';
import { isApiError } from '../../machinery/errors.js';
import { CLAIM_PROTECTION_FINALIZER, type Claim, type ConcreteResource, type ConcreteStatus, type RebindPolicy } from '../../apis/index.js';
import { isSharedClient, type ExternalClient } from '../../providers/spi.js';
import { recordEvent } from '../events.js';
import { CredentialsNotFoundError } from '../managed/connect-context.js';
import { bindingOf, isExclusive, resourceNamesClaim } from './binding-check.js';
import { deleteBindingSecrets, deleteIgnoringMissing, recordedDetails } from './binding-secrets.js';
import { verifiedResource } from './bound-resource.js';
import { allocatable } from './capacity.js';
import type { ClaimCaches, ClaimKindEntry, ConcreteKindEntry } from './claim-caches.js';
import {
  claimSummary,
  describeResource,
  errorText,
  resourceRefOf,
  setClaimCondition,
  statusOf,
  writeClaimStatus,
  type ClaimStatusOf,
  type ResourceReference,
} from './claim-status.js';
import type { ProviderAccess, ReleaseConnection } from './provider-access.js';
import { ClaimCondition, ClaimReason, FIELD_MANAGER } from './reasons.js';

/** What a Releaser works with. */
export interface ReleaserDeps {
  readonly client: Client;
  readonly caches: ClaimCaches;
  readonly access: ProviderAccess;
}

export class Releaser {
  constructor(private readonly deps: ReleaserDeps) {}

  /** release undoes a deleted claim's binding by the rebind policy, then removes the claim's finalizer. */
  async release(entry: ClaimKindEntry, claim: Claim): Promise<void> {
    const { client, caches } = this.deps;
    const ref = resourceRefOf(claim);
    // Only a resource that records this claim is released, whatever the claim's status names.
    const found = (ref ? await verifiedResource(client, caches, claim, ref) : undefined) ?? caches.resourceBoundTo(claim);
    if (found) await this.releaseResource(found.entry, found.resource, claim);
    const finalizers = (claim.metadata.finalizers ?? []).filter((f) => f !== CLAIM_PROTECTION_FINALIZER);
    if (finalizers.length === (claim.metadata.finalizers ?? []).length) return;
    try {
      await client.patch(
        entry.def.ref,
        claim.metadata.name!,
        'merge',
        { metadata: { resourceVersion: claim.metadata.resourceVersion, finalizers: finalizers.length ? finalizers : null } },
        { namespace: claim.metadata.namespace, fieldManager: FIELD_MANAGER },
      );
    } catch (err) {
      if (!(isApiError(err) && err.code === 404)) throw err;
    }
  }

  /**
   * markLost says on the claim that the resource its status names is gone or does not record
   * it (the same words either way, so a claim's status cannot ask whether a resource exists).
   */
  async markLost(entry: ClaimKindEntry, claim: Claim, ref: ResourceReference): Promise<void> {
    const old = statusOf(claim);
    if (old.phase === 'Lost') return;
    const why = `${ref.kind} ${ref.namespace}/${ref.name} no longer exists or is not bound to this claim`;
    const status: ClaimStatusOf = { ...old, phase: 'Lost' };
    status.conditions = setClaimCondition(status.conditions, claim, ClaimCondition.Bound, 'False', ClaimReason.ResourceLost, why);
    status.conditions = setClaimCondition(status.conditions, claim, ClaimCondition.Ready, 'False', ClaimReason.ResourceLost, why);
    await writeClaimStatus(this.deps.client, entry, claim, status);
    await recordEvent(this.deps.client, claim, 'Warning', ClaimReason.ClaimLost, `the bound ${why}`);
  }

  private async releaseResource(concrete: ConcreteKindEntry, resource: ConcreteResource, claim: Claim): Promise<void> {
    const { client } = this.deps;
    const policy: RebindPolicy = resource.spec.rebindPolicy ?? 'Retain';
    const where = describeResource(resource);
    // Nothing is undone for a claim the resource does not record (see verifiedResource).
    if (!resourceNamesClaim(resource, claim)) return;
    if (!isExclusive(resource)) {
      await this.unbindExternal(concrete, resource, claim, policy);
      // The binding Secret goes before the binding: once the binding is gone, nothing here runs again.
      await deleteBindingSecrets(client, resource, claim);
      const fresh = await client.get<ConcreteResource>(concrete.ref, resource.metadata.name!, resource.metadata.namespace);
      const st: ConcreteStatus = fresh.status ?? {};
      const mine = bindingOf(fresh, claim);
      const bindings = (st.bindings ?? []).filter((b) => b !== mine);
      const left = allocatable(fresh, bindings);
      await client.updateStatus(
        concrete.ref,
        {
          ...fresh,
          status: {
            ...st,
            bindings,
            phase: bindings.length ? 'Bound' : 'Available',
            claim: bindings.length ? claimSummary(bindings.length, bindings[0].claimRef) : undefined,
            ...(left ? { allocatable: left } : {}),
          },
        },
        { fieldManager: FIELD_MANAGER },
      );
      await recordEvent(client, resource, 'Normal', ClaimReason.Released, `claim ${claim.metadata.namespace}/${claim.metadata.name} released (${policy})`);
      return;
    }
    if (concrete.kind.sharing === 'Shared') {
      // The claim had its own database/user on the resource: drop, empty or keep it by policy.
      await this.unbindExternal(concrete, resource, claim, policy);
      await deleteBindingSecrets(client, resource, claim);
    }
    switch (policy) {
      case 'Retain':
        await this.setResourcePhase(concrete, resource, 'Released');
        await recordEvent(
          client,
          resource,
          'Normal',
          ClaimReason.Released,
          `claim ${claim.metadata.namespace}/${claim.metadata.name} released; ${where} is kept until an administrator deletes it or clears spec.claimRef`,
        );
        return;
      case 'Delete':
        await deleteIgnoringMissing(client, concrete.ref, resource.metadata.name!, resource.metadata.namespace);
        return;
      case 'Recycle': {
        if (concrete.outOfProcess) {
          // Scrubbing needs the provider's code; one in another process is not asked through the API.
          await this.setResourcePhase(concrete, resource, 'Released');
          await recordEvent(
            client,
            resource,
            'Warning',
            ClaimReason.CannotRecycle,
            `claim ${claim.metadata.namespace}/${claim.metadata.name} released; ${where} cannot be recycled by Conductor (its provider runs in another process), so it is kept Released: ` +
              'scrub it and clear spec.claimRef to offer it again, or delete it',
          );
          return;
        }
        if (concrete.kind.sharing !== 'Shared') {
          // (A per-claim kind was emptied by unbindClaim above.)
          const external = await this.connectForRelease(
            concrete,
            resource,
            claim,
            `the data claim ${claim.metadata.namespace}/${claim.metadata.name} wrote on ${where}`,
          );
          if (!external) {
            // Never handed to another claim unscrubbed: kept Released for an administrator.
            await this.setResourcePhase(concrete, resource, 'Released');
            return;
          }
          try {
            if (!external.scrub) throw new Error(`${resource.kind} cannot be recycled: its provider cannot scrub data`);
            await external.scrub(resource);
          } finally {
            await external.close?.();
          }
        }
        const cleared = await client.patch<ConcreteResource>(
          concrete.ref,
          resource.metadata.name!,
          'merge',
          { metadata: { resourceVersion: resource.metadata.resourceVersion }, spec: { claimRef: null } },
          { namespace: resource.metadata.namespace, fieldManager: FIELD_MANAGER },
        );
        await this.setResourcePhase(concrete, cleared, 'Available');
        await recordEvent(
          client,
          resource,
          'Normal',
          ClaimReason.Recycled,
          `data scrubbed after claim ${claim.metadata.namespace}/${claim.metadata.name} was released; ${where} is Available again`,
        );
        return;
      }
      default: {
        const never: never = policy;
        throw new Error(`unknown rebind policy ${String(never)}`);
      }
    }
  }

  /** unbindExternal has the provider drop, empty or keep the claim's own share of the resource by policy. */
  private async unbindExternal(concrete: ConcreteKindEntry, resource: ConcreteResource, claim: Claim, policy: RebindPolicy): Promise<void> {
    const where = describeResource(resource);
    const external = await this.connectForRelease(
      concrete,
      resource,
      claim,
      `the user and data of claim ${claim.metadata.namespace}/${claim.metadata.name} on ${where} (rebindPolicy ${policy} not applied)`,
    );
    if (!external) return;
    try {
      if (isSharedClient(external)) {
        await external.unbindClaim(
          resource,
          { namespace: claim.metadata.namespace!, name: claim.metadata.name!, uid: claim.metadata.uid },
          policy,
          await recordedDetails(this.deps.client, resource, claim),
        );
      }
    } finally {
      await external.close?.();
    }
  }

  /**
   * connectForRelease connects to the provider for undoing what a claim holds on `resource`
   * (`left` says what that is, for people). A Provider that does not exist never keeps a claim
   * from going: when the provider cannot be reached without it, Warning Events on the claim
   * and the resource say what may be left, and the answer is undefined (the caller goes on
   * without the provider). A credentials Secret that does not exist keeps the release waiting,
   * as it keeps a managed resource's deletion waiting: a Warning Event says which Secret to
   * restore and what stays until then, and the error is thrown (retried with backoff).
   */
  private async connectForRelease(concrete: ConcreteKindEntry, resource: ConcreteResource, claim: Claim, left: string): Promise<ExternalClient | undefined> {
    const { client, access } = this.deps;
    const where = describeResource(resource);
    let got: ReleaseConnection;
    try {
      got = await access.connectForRelease(concrete.kind, resource);
    } catch (err) {
      if (err instanceof CredentialsNotFoundError) {
        await recordEvent(
          client,
          claim,
          'Warning',
          ClaimReason.CannotRelease,
          `cannot release ${where}: ${err.what} does not exist; restore it so the release can finish. Until then ${left} stays, and this claim waits`,
        );
      }
      throw err;
    }
    if ('external' in got) return got.external;
    const message =
      `${got.unreachable.what} named by ${where}'s spec.providerRef does not exist and the provider cannot be reached without it (${errorText(got.cause)}): ` +
      `${left} may be left behind; released the claim anyway — remove it by hand`;
    await recordEvent(client, claim, 'Warning', ClaimReason.ExternalResourceLeft, message);
    await recordEvent(client, resource, 'Warning', ClaimReason.ExternalResourceLeft, message);
    return undefined;
  }

  /** setResourcePhase writes a resource's phase, clearing its CLAIM column. */
  private async setResourcePhase(concrete: ConcreteKindEntry, resource: ConcreteResource, phase: 'Released' | 'Available'): Promise<ConcreteResource> {
    const status: ConcreteStatus = { ...(resource.status ?? {}), phase };
    delete status.claim;
    return this.deps.client.updateStatus<ConcreteResource>(concrete.ref, { ...resource, status }, { fieldManager: FIELD_MANAGER });
  }
}
