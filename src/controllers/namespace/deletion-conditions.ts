/**
 * The conditions a namespace being deleted reports, as Kubernetes' namespace controller words
 * them (tools and people search for these exact types, reasons and messages): whether its
 * contents could be found and deleted, what remains, and which finalizers hold it.
 */

/** One NamespaceCondition (v1). */
export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

/** What one pass of the namespace controller saw. */
export interface DeletionObservation {
  /** Resources that still hold objects: `<resource>.<group>` (core: `<resource>.`) → how many. */
  remaining: ReadonlyMap<string, number>;
  /** Finalizers on the remaining objects → on how many objects. */
  finalizers: ReadonlyMap<string, number>;
  /** Deletions or lists that failed, as messages. */
  errors: readonly string[];
}

/** The condition types, in the order Kubernetes lists them. */
export const NAMESPACE_DELETION_CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

/**
 * How many resources or finalizers a message names before it counts the rest: finalizer names
 * come from what tenants write, so a namespace's status must not grow with how many they invent.
 */
export const MAX_LISTED = 32;

function counted(m: ReadonlyMap<string, number>, verb: string): string {
  const all = [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, n]) => `${name} ${verb} ${n} resource instances`);
  const rest = all.length - MAX_LISTED;
  return rest > 0 ? `${all.slice(0, MAX_LISTED).join(', ')} (and ${rest} more)` : all.join(', ');
}

/** deletionConditions words an observation (without times; see withTransitionTimes). */
export function deletionConditions(o: DeletionObservation): NamespaceCondition[] {
  const content: NamespaceCondition =
    o.errors.length === 0
      ? {
          type: 'NamespaceDeletionContentFailure',
          status: 'False',
          reason: 'ContentDeleted',
          message: 'All content successfully deleted, may be waiting on finalization',
        }
      : {
          type: 'NamespaceDeletionContentFailure',
          status: 'True',
          reason: 'ContentDeletionFailed',
          message: `Failed to delete all resource types, ${o.errors.length} remaining: ${[...o.errors].sort().join(', ')}`,
        };
  const remaining: NamespaceCondition =
    o.remaining.size === 0
      ? { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' }
      : {
          type: 'NamespaceContentRemaining',
          status: 'True',
          reason: 'SomeResourcesRemain',
          message: `Some resources are remaining: ${counted(o.remaining, 'has')}`,
        };
  const finalizers: NamespaceCondition =
    o.finalizers.size === 0
      ? { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' }
      : {
          type: 'NamespaceFinalizersRemaining',
          status: 'True',
          reason: 'SomeFinalizersRemain',
          message: `Some content in the namespace has finalizers remaining: ${counted(o.finalizers, 'in')}`,
        };
  return [
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    {
      type: 'NamespaceDeletionGroupVersionParsingFailure',
      status: 'False',
      reason: 'ParsedGroupVersions',
      message: 'All legacy kube types successfully parsed',
    },
    content,
    remaining,
    finalizers,
  ];
}

/**
 * withTransitionTimes keeps a condition's lastTransitionTime when its status did not change
 * and stamps `now` otherwise; `changed` says whether anything but times differs from before
 * (no write is needed when it does not).
 */
export function withTransitionTimes(
  next: readonly NamespaceCondition[],
  previous: readonly Partial<NamespaceCondition>[],
  now: string,
): { conditions: NamespaceCondition[]; changed: boolean } {
  let changed = previous.length !== next.length;
  const conditions = next.map((c) => {
    const old = previous.find((p) => p.type === c.type);
    if (old === undefined || old.status !== c.status || old.reason !== c.reason || old.message !== c.message) changed = true;
    const since = old !== undefined && old.status === c.status && typeof old.lastTransitionTime === 'string' ? old.lastTransitionTime : now;
    return { ...c, lastTransitionTime: since };
  });
  return { conditions, changed };
}
