/**
 * The words the claim controller writes: condition types, the reasons of its conditions and
 * Events (CamelCase, as the Kubernetes API conventions ask), and the field manager of its
 * writes. One place, so a reason is spelt once and a test can name it.
 */

/** The condition types of a claim's status. */
export const ClaimCondition = {
  /** The scheduler found (True) or did not find (False) a resource or class. */
  Scheduled: 'Scheduled',
  /** The resource records the claim (True), or no longer does (False: Lost). */
  Bound: 'Bound',
  /** The connection details are published (True), or why not (False). */
  Ready: 'Ready',
  /** The bound resource has the capacity the claim asks for, or why it cannot. */
  Resized: 'Resized',
} as const;
export type ClaimCondition = (typeof ClaimCondition)[keyof typeof ClaimCondition];

/**
 * The reasons of the claim controller's conditions and Events. A not-ready resource's own
 * failing reason is carried to the claim as it is (resource-conditions.ts), so a claim's
 * `Ready` reason is a ClaimReason or that carried reason.
 */
export const ClaimReason = {
  /** Scheduled=True: a resource or class was chosen. */
  Scheduled: 'Scheduled',
  /** Scheduled=False: nothing fits (the message sums the candidates' reasons). */
  Unschedulable: 'Unschedulable',
  /** Event of an unschedulable claim. */
  FailedScheduling: 'FailedScheduling',
  /** Bound=True, and the Event of a new binding. */
  Bound: 'Bound',
  /** Event: a resource is being created from a class for the claim. */
  Provisioning: 'Provisioning',
  /** Ready=False while the bound resource is not ready (and nothing fails). */
  Waiting: 'Waiting',
  /** Ready=False: the resource fails with a reason that is not CamelCase (its own reason is carried otherwise). */
  ResourceNotReady: 'ResourceNotReady',
  /** Ready=True: the connection details are published. */
  Available: 'Available',
  /** Event: the claim became ready after having been bound earlier. */
  Ready: 'Ready',
  /** Ready=False (and a Warning Event): the Secret or ConfigMap to publish to is another object's. */
  ConnectionSecretConflict: 'ConnectionSecretConflict',
  /** Ready=False: an out-of-process provider's resource is ready, but its connection details are missing or lack documented keys. */
  ConnectionDetailsMissing: 'ConnectionDetailsMissing',
  /** Warning Event on the resource: Recycle asked of a kind whose provider runs elsewhere (kept Released). */
  CannotRecycle: 'CannotRecycle',
  /** Bound=False and Ready=False: the resource is gone or no longer records the claim. */
  ResourceLost: 'ResourceLost',
  /** Warning Event of a claim that became Lost. */
  ClaimLost: 'ClaimLost',
  /** Event: a Shared resource's share of the claim was recreated. */
  ShareRepaired: 'ShareRepaired',
  /** Event: an Exclusive resource is grown to what the claim asks. */
  Resizing: 'Resizing',
  /** Resized=True: the resource has the requested capacity. */
  Resized: 'Resized',
  /** Resized=False (and a Warning Event): the resource cannot give what the claim asks. */
  ResizeNotPossible: 'ResizeNotPossible',
  /** Event on the resource: its claim let it go. */
  Released: 'Released',
  /** Event on the resource: scrubbed and Available again. */
  Recycled: 'Recycled',
  /** Warning Event: a release waits for a credentials Secret. */
  CannotRelease: 'CannotRelease',
  /** Warning Event: released without the provider; something may be left. */
  ExternalResourceLeft: 'ExternalResourceLeft',
} as const;
export type ClaimReason = (typeof ClaimReason)[keyof typeof ClaimReason];

/** The field manager of every write the claim controller makes. */
export const FIELD_MANAGER = 'conductor-claim-controller';
