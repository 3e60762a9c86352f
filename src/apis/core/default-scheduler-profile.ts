/**
 * The cluster's default SchedulerProfile (`default` in conductor-system): every filter, the
 * default score weights, a region hierarchy of the big three cloud geographies, and cost and
 * performance tiers. Administrators edit it like any object; Conductor only creates it when
 * it is absent and never overwrites it.
 */
import type { Client } from '../../client/types.js';
import { isAlreadyExists, isNotFound } from '../../machinery/errors.js';
import { CONDUCTOR_FIELD_MANAGER, SYSTEM_NAMESPACE } from '../well-known.js';
import { FILTER_PLUGINS, schedulerProfileKind, type SchedulerProfile, type SchedulerProfileSpec } from './kinds.js';

export const DEFAULT_SCHEDULER_PROFILE_NAME = 'default';

/** The default score weights: existing resources first, then the smallest fit, then cost and locality. */
export const DEFAULT_SCORE_WEIGHTS: Readonly<Record<string, number>> = {
  StaticFirst: 50,
  LeastWaste: 20,
  LowestCost: 15,
  Locality: 10,
  Spread: 5,
};

/** The spec of the default profile (a fresh copy each call). */
export function defaultSchedulerProfileSpec(): SchedulerProfileSpec {
  return {
    plugins: {
      filters: [...FILTER_PLUGINS],
      scores: Object.entries(DEFAULT_SCORE_WEIGHTS).map(([name, weight]) => ({ name, weight })),
    },
    regionHierarchy: {
      'north-america': ['us-east-1', 'us-west-2', 'ca-central-1'],
      europe: ['eu-west-1', 'eu-central-1'],
      'asia-pacific': ['ap-southeast-1', 'ap-northeast-1'],
    },
    costTiers: ['free-tier', 'standard', 'premium'],
    performanceTiers: ['standard', 'performance', 'extreme'],
  };
}

/** The default profile object. */
export function defaultSchedulerProfile(namespace = SYSTEM_NAMESPACE): SchedulerProfile {
  return schedulerProfileKind.make({
    metadata: { name: DEFAULT_SCHEDULER_PROFILE_NAME, namespace },
    spec: defaultSchedulerProfileSpec(),
  });
}

/**
 * Creates the default SchedulerProfile unless one by that name exists; returns the profile
 * found or created. The SchedulerProfile CRD must be established (see installCrds).
 */
export async function ensureDefaultSchedulerProfile(client: Client, namespace = SYSTEM_NAMESPACE): Promise<SchedulerProfile> {
  try {
    return await client.get<SchedulerProfile>(schedulerProfileKind.ref, DEFAULT_SCHEDULER_PROFILE_NAME, namespace);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  try {
    return await client.create<SchedulerProfile>(schedulerProfileKind.ref, defaultSchedulerProfile(namespace), { fieldManager: CONDUCTOR_FIELD_MANAGER });
  } catch (err) {
    // Someone else created it between our get and create: theirs stands.
    if (isAlreadyExists(err)) return client.get<SchedulerProfile>(schedulerProfileKind.ref, DEFAULT_SCHEDULER_PROFILE_NAME, namespace);
    throw err;
  }
}
