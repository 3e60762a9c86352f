/**
 * The managed reconciler (docs/design.md 3.2, 3.6 point 5): one per concrete kind, keeping each
 * concrete resource converged with its external resource through the provider SPI.
 */
export { ManagedReconciler, ManagedReconcileError, needsReconcile, reasons } from './managed-reconciler.js';
export { CallCancelledError, CallTimeoutError, deadlineClient, isCancelled, withDeadline, type DeadlineOptions, type ProviderCall } from './call-deadline.js';
export { managedReconcilerDefaults, resolveOptions } from './reconciler-options.js';
export type { ManagedReconcilerOptions, ResolvedManagedReconcilerOptions } from './reconciler-options.js';
export { startManagedReconcilers } from './start.js';
export type { RunningManagedReconcilers } from './start.js';
export { MANAGED_PROTECTION_FINALIZER } from './resource-writes.js';
export { CONNECTION_SECRET_TYPE, controllerReference, publishConnectionSecret } from './connection-secret.js';
export type { PublishResult } from './connection-secret.js';
export { connectionSecretNameFor, concreteFields } from './concrete-fields.js';
export type { ConcreteFields } from './concrete-fields.js';
export { connectContext, decodeSecretData, DependencyNotFoundError, ProviderNotFoundError, CredentialsNotFoundError } from './connect-context.js';
export { claimsUsing, describeClaims, referencedClaims } from './claims-in-use.js';
export type { ClaimInUse } from './claims-in-use.js';
export { lastCreateAttempt, outcomeTimestamp, pendingTimestamp } from './crash-guard.js';
export type { CreateAttempt } from './crash-guard.js';
export { conditionTime, findCondition, readConditions, setCondition } from './conditions.js';
export type { ConditionUpdate } from './conditions.js';
export { formatDuration, parseDuration, pollIntervalFor } from './poll-interval.js';
export type { PollInterval } from './poll-interval.js';
export { IN_USE, READY, SYNCED, nextPhase, nextStatus } from './status.js';
export type { ConditionState, StatusChange } from './status.js';
