/**
 * Conductor's admission plugins, registered on the API server through its `extend` option:
 * the claim-protection finalizer, ClaimQuota enforcement, the Provider-in-use check and the
 * two warnings (WaitForFirstConsumer, a missing Provider). Built once the server's object
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
import { PlanAnnotation, type Planner } from './plan-annotation.js';
import { ProviderInUse } from './provider-in-use.js';

export interface ConductorAdmission {
  mutating: MutatingPlugin[];
  validating: ValidatingPlugin[];
  /** Which served types are claim kinds (shared with RBAC's Secret-reference check). */
  claimTypes: ClaimTypeIndex;
  stop(): void;
}

export async function conductorAdmission(parts: ServerParts, planner: Planner = () => undefined): Promise<ConductorAdmission> {
  const { objects, registry, store, logger } = parts;
  // Which namespaces hold ClaimQuotas, asked on every claim create, kept in memory.
  const quotaKeys = new PrefixCache<unknown>(store, objects.resourcePrefix({ group: 'core.conductor.io', resource: 'claimquotas' }), {
    project: () => true,
    logger,
  });
  await quotaKeys.start();
  const claimTypes = new ClaimTypeIndex(objects, registry);
  return {
    mutating: [new ClaimProtectionAdmission(claimTypes), new PlanAnnotation(claimTypes, planner)],
    validating: [
      new ProviderInUse(objects, registry),
      new BindingModeWarning(),
      new MissingProviderWarning(objects, registry),
      new ClaimQuotaAdmission(objects, registry, { logger: logger.child({ component: 'admission' }), claimKinds: claimTypes, quotaKeys }),
    ],
    claimTypes,
    stop: () => quotaKeys.stop(),
  };
}
export { PLAN_ANNOTATION, planOf, type ClaimPlan, type Planner } from './plan-annotation.js';
