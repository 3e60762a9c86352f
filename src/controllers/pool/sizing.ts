/**
 * The sizing decision of a warm pool (docs/design.md 3.6 point 6), a pure function of the class's
 * pool settings and its resources:
 *
 * - Fill: fewer than `minFree` free (unbound) resources → create the difference, but never
 *   so many that the class's resources (bound, free or being deleted) exceed `maxInstances`.
 * - Trim: more than `maxFree` free resources, or more live resources than `maxInstances`
 *   (the cap was lowered) → delete the excess, newest first, choosing only members the pool
 *   created that are free and Available; members still provisioning wait for a later pass.
 *
 * Free resources count whatever their phase (Pending, Available, Failed): a member still
 * provisioning is on its way, and one that failed is the managed reconciler's to retry, so
 * neither makes the pool create more — which also bounds a pool whose members keep failing.
 */
import type { PoolSettings } from './pool-settings.js';
import type { PoolMember } from './members.js';

/** Why a plan deletes: free members above maxFree, or resources above maxInstances. */
export type TrimReason = 'surplus' | 'over-cap';

/** A PoolPlan is what to do to a pool now. */
export interface PoolPlan {
  /** How many members to create. */
  create: number;
  /** The members to delete, newest first. */
  delete: PoolMember[];
  /** Why `delete` is not empty. */
  trimReason?: TrimReason;
  /** Free resources before the plan. */
  free: number;
  /** All resources of the class before the plan, including those being deleted. */
  instances: number;
  /** True when maxInstances keeps the pool below minFree, even once the plan is done. */
  capped: boolean;
}

/** newestFirst orders members by creation time, newest first; ties by name, highest first (pool-10 after pool-9). */
export function newestFirst(a: PoolMember, b: PoolMember): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return b.name.localeCompare(a.name, 'en', { numeric: true });
}

/**
 * planPool decides how to resize a class's pool. `maxFree` below `minFree` (which the CRD
 * rejects) is read as `minFree`, so a plan never deletes what the next pass would create.
 */
export function planPool(settings: PoolSettings, members: readonly PoolMember[]): PoolPlan {
  const instances = members.length;
  const live = members.filter((m) => m.state !== 'deleting').length;
  const free = members.filter((m) => m.state === 'free').length;

  const wanted = Math.max(0, settings.minFree - free);
  const room = settings.maxInstances > 0 ? Math.max(0, settings.maxInstances - instances) : Number.POSITIVE_INFINITY;
  const create = Math.min(wanted, room);

  const maxFree = settings.maxFree > 0 ? Math.max(settings.maxFree, settings.minFree) : 0;
  const surplus = maxFree > 0 ? Math.max(0, free - maxFree) : 0;
  const overCap = settings.maxInstances > 0 ? Math.max(0, live - settings.maxInstances) : 0;
  const excess = Math.max(surplus, overCap);
  const deletable = members.filter((m) => m.pooled && m.state === 'free' && m.available).sort(newestFirst);
  const toDelete = deletable.slice(0, excess);

  return {
    create,
    delete: toDelete,
    ...(toDelete.length > 0 ? { trimReason: surplus >= overCap ? 'surplus' : 'over-cap' } : {}),
    free,
    instances,
    capped: free + create - toDelete.length < settings.minFree,
  };
}
