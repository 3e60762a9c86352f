/**
 * Reading and writing a claim's status: its conditions (one per type, transition time kept
 * while the status stays), the reference a resource records for it, and the compare-and-swap
 * status write every piece of the claim controller uses.
 */
import type { Client } from '../../client/types.js';
import type { Claim, ClaimStatus, ConcreteResource, ObjectReference } from '../../apis/index.js';
import type { Condition, KObject } from '../../machinery/object.js';
import { setCondition as setConditionIn } from '../managed/conditions.js';
import type { ClaimKindEntry } from './claim-caches.js';
import { FIELD_MANAGER, type ClaimCondition, type ClaimReason } from './reasons.js';

/** A claim's status as the controller reads and writes it. */
export type ClaimStatusOf = ClaimStatus;

/** The reference a resource records for its claim (Exclusive `spec.claimRef`, Shared `status.bindings[].claimRef`). */
export interface ClaimReference {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/** A claim's `status.resourceRef`: what the claim says it is bound to (never trusted alone). */
export type ResourceReference = ObjectReference;

/** What a reconcile asks of the work queue: nothing, or to look again after a while. */
export type ReconcileResult = { requeueAfterMs?: number } | void;

/** statusOf is the claim's status, or an empty one. */
export function statusOf(claim: Claim): ClaimStatus {
  return claim.status ?? {};
}

/** resourceRefOf is the resource the claim's status names, if it names one. */
export function resourceRefOf(claim: Claim): ResourceReference | undefined {
  return statusOf(claim).resourceRef;
}

/**
 * setClaimCondition returns `conds` with one condition set for `claim` (its generation as
 * observedGeneration; the transition time kept while the status stays).
 */
export function setClaimCondition(
  conds: readonly Condition[] | undefined,
  claim: KObject,
  type: ClaimCondition,
  status: Condition['status'],
  reason: ClaimReason | (string & Record<never, never>),
  message: string,
): Condition[] {
  const observedGeneration = claim.metadata.generation;
  return setConditionIn(conds, { type, status, reason, message, ...(observedGeneration ? { observedGeneration } : {}) }, new Date());
}

/** conditionOf finds a condition of the claim's status. */
export function conditionOf(status: ClaimStatus, type: ClaimCondition): Condition | undefined {
  return status.conditions?.find((c) => c.type === type);
}

/** claimRefOf is the reference a resource records for `claim` (namespace, name and uid). */
export function claimRefOf(claim: Claim): ClaimReference {
  return { apiVersion: claim.apiVersion, kind: claim.kind, namespace: claim.metadata.namespace!, name: claim.metadata.name!, uid: claim.metadata.uid! };
}

/** claimSummary is a resource's `status.claim` (its CLAIM column): the first claim, and how many more. */
export function claimSummary(count: number, ref: { namespace?: string; name: string }): string {
  return count > 1 ? `${ref.namespace}/${ref.name} +${count - 1}` : `${ref.namespace}/${ref.name}`;
}

/** describeResource names a resource for people: `Kind namespace/name`. */
export function describeResource(resource: ConcreteResource | KObject): string {
  return `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
}

/**
 * writeClaimStatus writes `status` as the claim's status. The claim carries its
 * resourceVersion, so the write is compare-and-swap: a claim changed meanwhile answers 409
 * and is looked at again with its news.
 */
export function writeClaimStatus(client: Client, entry: ClaimKindEntry, claim: Claim, status: ClaimStatus): Promise<Claim> {
  return client.updateStatus<Claim>(entry.def.ref, { ...claim, status }, { fieldManager: FIELD_MANAGER });
}

/** errorText is an error's message (or the thrown value as text). */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
