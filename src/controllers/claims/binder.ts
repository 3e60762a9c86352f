/**
 * A Binder schedules a pending claim and binds it (docs/design.md 3.6 point 2) with two
 * compare-and-swap writes: the resource's side first — an Exclusive resource's
 * `spec.claimRef` patched with the resourceVersion it was read at, a Shared resource's
 * `status.bindings` replaced whole — then the claim's `status.resourceRef`. A resource the
 * cache shows taken by another claim since the decision ("taken meanwhile") or being deleted
 * is not written at all; one taken between the read and the write answers 409, and the claim
 * is looked at again with the news. The binding is what the resource records: the claim's
 * side is a copy written once the resource's side is in place.
 */
import { secondsSince, type ClaimMetrics } from '../metrics.js';
import type { Client } from '../../client/types.js';
import type { Claim, ConcreteResource, ConcreteStatus } from '../../apis/index.js';
import { sameStatusIgnoringTransitionTimes } from '../../machinery/object.js';
import { claimInfoFromObject, resourceKey, type ResourceCandidate, type ScheduleResult, type Scheduler } from '../../scheduler/index.js';
import { recordEvent } from '../events.js';
import { admitsClaim } from './binding-check.js';
import { allocatable, requestsOf } from './capacity.js';
import { isReady } from './changes.js';
import type { ClaimCaches, ClaimKindEntry, ConcreteKindEntry } from './claim-caches.js';
import { kindKey } from './claim-caches.js';
import {
  claimRefOf,
  claimSummary,
  conditionOf,
  describeResource,
  setClaimCondition,
  statusOf,
  writeClaimStatus,
  type ClaimStatusOf,
  type ReconcileResult,
  type ResourceReference,
} from './claim-status.js';
import { classLabelOf, classOfLabel } from './labels.js';
import { bindingSecretName } from './names.js';
import { ClaimCondition, ClaimReason, FIELD_MANAGER } from './reasons.js';
import { notReadyReason } from './resource-conditions.js';

/**
 * What binding to a chosen resource came to: bound (the resource's side written), or not,
 * and why — the claim then stays pending and is looked at again.
 */
export type BindOutcome =
  | { readonly type: 'bound'; readonly entry: ConcreteKindEntry; readonly resource: ConcreteResource }
  /** Another claim's claimRef is on the resource (the scheduler had not seen it yet). */
  | { readonly type: 'taken' }
  /** The resource has a deletionTimestamp: its deletion waits for its claims, so it takes no more. */
  | { readonly type: 'being-deleted' }
  /** The candidate's kind is not one the controller serves. */
  | { readonly type: 'kind-not-served' };

/** What a Binder works with. */
export interface BinderDeps {
  readonly client: Client;
  readonly caches: ClaimCaches;
  readonly scheduler: Scheduler;
  /**
   * resourceSeen is told of a resource read since the decision, so the scheduler's candidate
   * is refreshed from its own record (undoing `reserve`'s provisional count).
   */
  resourceSeen(entry: ConcreteKindEntry, resource: ConcreteResource): void;
  /**
   * syncBound carries a claim whose binding is staged (not yet written) onto a ready
   * resource: the binding and the published connection go out in one status write.
   */
  syncBound(entry: ClaimKindEntry, staged: Claim, ref: ResourceReference, resource: ConcreteResource, justBound: string): Promise<ReconcileResult>;
  /** Where the time from a claim's creation to its binding is reported. */
  readonly metrics?: ClaimMetrics;
}

export class Binder {
  constructor(private readonly deps: BinderDeps) {}

  /**
   * schedule chooses a resource or class for the claim (or says why none fits) and reserves a
   * chosen resource (see reserve). Without extenders the decision and the reservation happen
   * in one synchronous step, before anything is awaited, so concurrent workers never choose
   * the same resource; `reserved` is false when another claim reserved it while extenders
   * were being asked.
   */
  async schedule(claim: Claim): Promise<{ readonly result: ScheduleResult; readonly reserved: boolean }> {
    const { scheduler, caches } = this.deps;
    const nsObj = caches.namespaces.store.get(undefined, claim.metadata.namespace!);
    const info = claimInfoFromObject(claim, { namespaceLabels: nsObj?.metadata.labels ?? {} });
    const result = scheduler.hasExtenders ? await scheduler.schedule(info) : scheduler.scheduleSync(info);
    return { result, reserved: result.decision.type !== 'resource' || this.reserve(result.decision.candidate, claim) };
  }

  /**
   * plan is what `schedule` would decide for the claim now, without reserving anything: for a
   * server-side dry run (`conductor plan`).
   */
  async plan(claim: Claim): Promise<ScheduleResult> {
    const { scheduler, caches } = this.deps;
    const nsObj = caches.namespaces.store.get(undefined, claim.metadata.namespace!);
    return scheduler.schedule(claimInfoFromObject(claim, { namespaceLabels: nsObj?.metadata.labels ?? {} }));
  }

  /**
   * reserve marks the chosen resource taken in the scheduler at once, so the other workers
   * choose elsewhere instead of racing for it; the informer brings the true state back either
   * way. False when someone else reserved it since the decision (only possible while
   * extenders were being asked).
   */
  reserve(cand: ResourceCandidate, claim: Claim): boolean {
    const { scheduler } = this.deps;
    const current = scheduler.get(resourceKey(cand.kind, cand.namespace, cand.name));
    if (!current || current.type !== 'resource') return false;
    if (current.sharing.mode === 'Exclusive' && current.claimRef && !admitsClaim({ ...current.claimRef }, claim)) return false;
    const ref = claimRefOf(claim);
    scheduler.upsert(
      current.sharing.mode === 'Shared'
        ? { ...current, boundCount: current.boundCount + 1 }
        : { ...current, phase: 'Bound', claimRef: { namespace: ref.namespace, name: ref.name, uid: ref.uid } },
    );
    return true;
  }

  /**
   * bindResource writes the resource's side of the binding to the chosen candidate. An
   * Exclusive resource is bound by a merge patch of `spec.claimRef` that carries the
   * resourceVersion the resource was read at (compare-and-swap: a 409 when it changed); a
   * Shared one by a status write of its bindings (the object's resourceVersion makes it
   * compare-and-swap too). A failed write throws after refreshing the candidate.
   */
  async bindResource(claim: Claim, cand: ResourceCandidate): Promise<BindOutcome> {
    const { client, caches } = this.deps;
    const concrete = caches.concretes.get(kindKey(cand.kind.group, cand.kind.kind));
    if (!concrete) return { type: 'kind-not-served' };
    const resource = concrete.informer.store.get(cand.namespace, cand.name) ?? (await client.get<ConcreteResource>(concrete.ref, cand.name, cand.namespace));
    if (resource.metadata.deletionTimestamp) {
      this.deps.resourceSeen(concrete, resource);
      return { type: 'being-deleted' };
    }
    try {
      return cand.sharing.mode === 'Shared' ? await this.bindShared(concrete, resource, claim) : await this.bindExclusive(concrete, resource, claim);
    } catch (err) {
      const fresh = concrete.informer.store.get(cand.namespace, cand.name);
      if (fresh) this.deps.resourceSeen(concrete, fresh);
      throw err;
    }
  }

  private async bindExclusive(concrete: ConcreteKindEntry, resource: ConcreteResource, claim: Claim): Promise<BindOutcome> {
    // Taken meanwhile (the informer will bring the news), unless it is a reservation for this claim.
    if (!admitsClaim(resource.spec.claimRef, claim)) return { type: 'taken' };
    const bound = await this.deps.client.patch<ConcreteResource>(
      concrete.ref,
      resource.metadata.name!,
      'merge',
      {
        metadata: { resourceVersion: resource.metadata.resourceVersion },
        spec: { claimRef: claimRefOf(claim) },
      },
      { namespace: resource.metadata.namespace, fieldManager: FIELD_MANAGER },
    );
    // The managed reconciler writes the phase (Bound) that follows from the claimRef.
    return { type: 'bound', entry: concrete, resource: bound };
  }

  private async bindShared(concrete: ConcreteKindEntry, resource: ConcreteResource, claim: Claim): Promise<BindOutcome> {
    const status: ConcreteStatus = resource.status ?? {};
    const claimRef = claimRefOf(claim);
    const bindings = [...(status.bindings ?? [])];
    if (!bindings.some((b) => b.claimRef.uid === claim.metadata.uid)) {
      const requests = requestsOf(claim);
      bindings.push({ claimRef, ...(requests ? { requests } : {}), secretName: bindingSecretName(resource, claim) });
    }
    const left = allocatable(resource, bindings);
    const saved = await this.deps.client.updateStatus<ConcreteResource>(
      concrete.ref,
      { ...resource, status: { ...status, bindings, phase: 'Bound', claim: claimSummary(bindings.length, claimRef), ...(left ? { allocatable: left } : {}) } },
      { fieldManager: FIELD_MANAGER },
    );
    return { type: 'bound', entry: concrete, resource: saved };
  }

  /**
   * recordBoundPhase writes phase Bound (and the CLAIM column) on an Exclusive resource whose
   * claimRef names the claim, when its phase does not say so yet — for kinds whose provider
   * runs in another process (the managed reconciler does it for the others). Bound and
   * Released are the binder's phases: such providers write Pending, Available or Failed only.
   */
  async recordBoundPhase(concrete: ConcreteKindEntry, resource: ConcreteResource, claim: Claim): Promise<void> {
    const status: ConcreteStatus = resource.status ?? {};
    if (status.phase === 'Bound' || status.phase === 'Released') return;
    await this.deps.client.updateStatus<ConcreteResource>(
      concrete.ref,
      { ...resource, status: { ...status, phase: 'Bound', claim: claimSummary(1, claimRefOf(claim)) } },
      { fieldManager: FIELD_MANAGER },
    );
  }

  /**
   * finishBinding writes the claim's side of a binding whose resource side is in place. When
   * the resource is already ready, the bound status and the published connection go out in
   * one status write (through `syncBound`).
   */
  async finishBinding(
    entry: ClaimKindEntry,
    claim: Claim,
    concrete: ConcreteKindEntry,
    resource: ConcreteResource,
    why?: string,
    /** The resource was provisioned for the claim just now: how (`provisioned from class …`), for the Bound event. */
    provisioned?: string,
  ): Promise<ReconcileResult> {
    const { client } = this.deps;
    const status = this.boundStatus(claim, resource, why);
    const boundTo = `bound to ${describeResource(resource)}${provisioned ? `, ${provisioned}` : ''}`;
    if (!isReady(resource)) {
      await writeClaimStatus(client, entry, claim, status);
      this.observeBound(claim);
      await recordEvent(client, claim, 'Normal', ClaimReason.Bound, boundTo);
      const notReady = notReadyReason(resource);
      if (notReady.failing) await recordEvent(client, claim, 'Warning', notReady.reason, notReady.message);
      return; // the resource becoming Ready (or its conditions changing) wakes the claim
    }
    try {
      // Bound and ready at once: one event tells both.
      const result = await this.deps.syncBound(entry, { ...claim, status }, status.resourceRef!, resource, boundTo);
      this.observeBound(claim);
      return result;
    } catch (err) {
      // The connection could not be published yet: the binding itself still goes on record.
      await writeClaimStatus(client, entry, claim, status);
      this.observeBound(claim);
      await recordEvent(client, claim, 'Normal', ClaimReason.Bound, boundTo);
      throw err;
    }
  }

  /** observeBound reports how long `claim` (as it was before this binding) waited to be Bound, the first time it is. */
  private observeBound(claim: Claim): void {
    const { metrics } = this.deps;
    if (!metrics || statusOf(claim).phase === 'Bound') return;
    const age = secondsSince(claim.metadata.creationTimestamp);
    if (age !== undefined) metrics.bound(claim.kind, age);
  }

  /** markPending says on the claim why nothing fits (Scheduled=False), with a FailedScheduling Event when that is news. */
  async markPending(entry: ClaimKindEntry, claim: Claim, why: string): Promise<void> {
    const old = statusOf(claim);
    const status: ClaimStatusOf = { ...old, phase: 'Pending', observedGeneration: claim.metadata.generation };
    status.conditions = setClaimCondition(status.conditions, claim, ClaimCondition.Scheduled, 'False', ClaimReason.Unschedulable, why);
    if (sameStatusIgnoringTransitionTimes(old, status)) return;
    await writeClaimStatus(this.deps.client, entry, claim, status);
    await recordEvent(this.deps.client, claim, 'Warning', ClaimReason.FailedScheduling, why);
  }

  /** The claim's status once bound to `resource` (not yet ready). */
  private boundStatus(claim: Claim, resource: ConcreteResource, why?: string): ClaimStatusOf {
    const classRef = classOfLabel(classLabelOf(resource));
    const status: ClaimStatusOf = {
      ...statusOf(claim),
      phase: 'Bound',
      resourceRef: {
        apiVersion: resource.apiVersion,
        kind: resource.kind,
        namespace: resource.metadata.namespace,
        name: resource.metadata.name!,
        uid: resource.metadata.uid,
      },
      ...(classRef ? { classRef } : {}),
      observedGeneration: claim.metadata.generation,
    };
    const boundTo = `bound to ${describeResource(resource)}`;
    // The scheduler's explanation (what fit, what was chosen and why, what was rejected) when
    // this reconcile made the choice; otherwise (finishing an earlier binding) just the result.
    const prior = conditionOf(status, ClaimCondition.Scheduled);
    if (!(prior?.status === 'True') || why)
      status.conditions = setClaimCondition(status.conditions, claim, ClaimCondition.Scheduled, 'True', ClaimReason.Scheduled, why ?? boundTo);
    status.conditions = setClaimCondition(status.conditions, claim, ClaimCondition.Bound, 'True', ClaimReason.Bound, boundTo);
    const notReady = notReadyReason(resource);
    status.conditions = setClaimCondition(status.conditions, claim, ClaimCondition.Ready, 'False', notReady.reason, notReady.message);
    return status;
  }
}
