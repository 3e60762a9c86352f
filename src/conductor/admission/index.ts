/**
 * Conductor's admission plugins, registered on the API server through its `extend` option:
 * the claim-protection finalizer, ClaimQuota enforcement, the Provider-in-use check and the
 * warnings (WaitForFirstConsumer, a missing Provider, a region or profile nothing offers). Built once the server's object
 * store and registry exist.
 */
import type { MutatingPlugin, ValidatingPlugin } from '../../apiserver/admission/types.js';
import type { ServerParts } from '../../apiserver/extension.js';
import { PrefixCache } from '../../apiserver/storage/prefix-cache.js';
import { BindingModeWarning } from './binding-mode-warning.js';
import { ClaimProtectionAdmission } from './claim-protection.js';
import { ClaimQuotaAdmission } from './claim-quota.js';
import { ClaimTypeIndex } from './claim-types.js';
import { MissingProviderWarning } from './missing-provider-warning.js';
import { PlacementIndex, type PlacementIndexOptions } from './placement-index.js';
import { PlacementWarning } from './placement-warning.js';
import { PlanAnnotation, type Planner } from './plan-annotation.js';
import { ProviderInUse } from './provider-in-use.js';

export interface ConductorAdmission {
  mutating: MutatingPlugin[];
  validating: ValidatingPlugin[];
  /** Which served types are claim kinds (shared with RBAC's Secret-reference check). */
  claimTypes: ClaimTypeIndex;
  stop(): void;
}

export interface ConductorAdmissionOptions {
  /** The running claim controller's planner, for dry runs. */
  planner?: Planner;
  /** Which claim kinds each built-in concrete kind implements (the unknown region/profile warning). */
  implementsOf?: PlacementIndexOptions['implementsOf'];
}

export async function conductorAdmission(parts: ServerParts, options: ConductorAdmissionOptions = {}): Promise<ConductorAdmission> {
  const planner = options.planner ?? (() => undefined);
  const { objects, registry, store, logger } = parts;
  // Which namespaces hold ClaimQuotas, asked on every claim create, kept in memory.
  const quotaKeys = new PrefixCache<unknown>(store, objects.resourcePrefix({ group: 'core.conductor.io', resource: 'claimquotas' }), {
    project: () => true,
    logger,
  });
  await quotaKeys.start();
  const claimTypes = new ClaimTypeIndex(objects, registry);
  // What each claim kind's classes and resources offer, for the unknown region/profile warning.
  const placement = new PlacementIndex(store, objects, registry, {
    implementsOf: options.implementsOf ?? (() => undefined),
    logger: logger.child({ component: 'admission' }),
  });
  await placement.start();
  return {
    mutating: [new ClaimProtectionAdmission(claimTypes), new PlanAnnotation(claimTypes, planner)],
    validating: [
      new ProviderInUse(objects, registry),
      new BindingModeWarning(),
      new MissingProviderWarning(objects, registry),
      new PlacementWarning(claimTypes, placement),
      new ClaimQuotaAdmission(objects, registry, { logger: logger.child({ component: 'admission' }), claimKinds: claimTypes, quotaKeys }),
    ],
    claimTypes,
    stop: () => {
      quotaKeys.stop();
      placement.stop();
    },
  };
}
export { PLAN_ANNOTATION, planOf, type ClaimPlan, type Planner } from './plan-annotation.js';
