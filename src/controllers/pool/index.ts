/**
 * The pool manager: warm pools of unbound resources for ResourceClasses with
 * `pool.minFree > 0` (docs/design.md 3.6 point 6).
 */
export { PoolController, poolReasons, POOL_FIELD_MANAGER, type PoolControllerOptions } from './pool-controller.js';
export { startPoolController, poolKindsOf } from './start.js';
export { planPool, newestFirst, type PoolPlan, type TrimReason } from './sizing.js';
export { poolSettingsOf, poolTemplateOf, type PoolSettings, type PoolTemplate } from './pool-settings.js';
export {
  POOL_LABEL,
  buildPoolMember,
  classLabelValue,
  classOfLabel,
  describeMembers,
  memberOf,
  memberStateOf,
  type MemberState,
  type PoolMember,
} from './members.js';
export { poolMemberName, poolIndexOf, nextFreeNames, POOL_NAME_LIMIT } from './names.js';
export { Expectations, type ExpectationProbe } from './expectations.js';
