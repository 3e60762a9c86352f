/**
 * A Resizer gives a bound claim that asks for more capacity what it asks (docs/design.md 3.1:
 * changing a bound claim's requirements is a resize): an Exclusive resource provisioned from
 * a class grows within the class's capabilities (a compare-and-swap patch of its capacity); a
 * Shared resource's binding takes more of its allocatable. Otherwise the claim's `Resized`
 * condition says why not.
 */
import type { Client } from '../../client/types.js';
import { deepEqual, sameStatusIgnoringTransitionTimes } from '../../machinery/object.js';
import type { Claim, ConcreteResource } from '../../apis/index.js';
import { recordEvent } from '../events.js';
import { isExclusive } from './binding-check.js';
import { allocatable, requestsOf, resizeExclusive } from './capacity.js';
import type { ClaimCaches, ClaimKindEntry, ConcreteKindEntry } from './claim-caches.js';
import { describeResource, setClaimCondition, statusOf, writeClaimStatus, type ClaimStatusOf } from './claim-status.js';
import { classLabelOf } from './labels.js';
import { ClaimCondition, ClaimReason, FIELD_MANAGER } from './reasons.js';

/** What a Resizer works with. */
export interface ResizerDeps {
  readonly client: Client;
  readonly caches: ClaimCaches;
}

export class Resizer {
  constructor(private readonly deps: ResizerDeps) {}

  /**
   * resize grows the resource (or the claim's share of it) when the claim asks for more and
   * it can, else says why on the claim. True when it wrote something (the next reconcile goes on).
   */
  async resize(entry: ClaimKindEntry, claim: Claim, concrete: ConcreteKindEntry, resource: ConcreteResource): Promise<boolean> {
    const { client, caches } = this.deps;
    const requests = requestsOf(claim);
    const old = statusOf(claim);
    let cannot: string | undefined;
    if (isExclusive(resource)) {
      const provisioned = classLabelOf(resource) !== undefined;
      const verdict = resizeExclusive(resource, requests, caches.classOf(resource)?.capabilities?.capacity, provisioned);
      if (verdict.type === 'grow') {
        await client.patch(
          concrete.ref,
          resource.metadata.name!,
          'merge',
          { metadata: { resourceVersion: resource.metadata.resourceVersion }, spec: { capabilities: { capacity: verdict.capacity } } },
          { namespace: resource.metadata.namespace, fieldManager: FIELD_MANAGER },
        );
        await recordEvent(client, claim, 'Normal', ClaimReason.Resizing, `growing ${describeResource(resource)} to ${JSON.stringify(verdict.capacity)}`);
        return true;
      }
      if (verdict.type === 'cannot') cannot = verdict.reason;
    } else if (requests) {
      const st = resource.status ?? {};
      const bindings = st.bindings ?? [];
      const mine = bindings.find((b) => b.claimRef.uid === claim.metadata.uid);
      if (mine && !deepEqual(mine.requests ?? {}, requests)) {
        const next = bindings.map((b) => (b === mine ? { ...b, requests } : b));
        const left = allocatable(resource, next);
        if (left && Object.values(left).some((v) => v.startsWith('-'))) {
          cannot = `asks for ${JSON.stringify(requests)} but ${resource.kind} ${resource.metadata.name} has only ${JSON.stringify(
            allocatable(
              resource,
              bindings.filter((b) => b !== mine),
            ),
          )} left`;
        } else {
          await client.updateStatus(
            concrete.ref,
            { ...resource, status: { ...st, bindings: next, ...(left ? { allocatable: left } : {}) } },
            { fieldManager: FIELD_MANAGER },
          );
          return true;
        }
      }
    }
    const status: ClaimStatusOf = { ...old };
    if (cannot) status.conditions = setClaimCondition(status.conditions, claim, ClaimCondition.Resized, 'False', ClaimReason.ResizeNotPossible, cannot);
    else if (old.conditions?.some((c) => c.type === ClaimCondition.Resized)) {
      status.conditions = setClaimCondition(
        status.conditions,
        claim,
        ClaimCondition.Resized,
        'True',
        ClaimReason.Resized,
        'the resource has the requested capacity',
      );
    }
    if (sameStatusIgnoringTransitionTimes(old, status)) return false;
    await writeClaimStatus(client, entry, claim, status);
    if (cannot) await recordEvent(client, claim, 'Warning', ClaimReason.ResizeNotPossible, cannot);
    return true;
  }
}
