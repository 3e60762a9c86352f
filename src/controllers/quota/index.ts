/**
 * ClaimQuota: the usage arithmetic shared with the API server's admission plugin, and the
 * controller that keeps every quota's `status.hard` and `status.used` current.
 */
export {
  MONTHLY_COST_ANNOTATION,
  PriceBook,
  addLists,
  chargeOf,
  exceededKeys,
  exceededMessage,
  formatList,
  maxLists,
  needsPrices,
  parseQuotaKey,
  parseResourceList,
  positiveKeys,
  quotaStatusFor,
  sameLists,
  subtractLists,
  toQuantityMap,
  usageOf,
} from './usage.js';
export type { BadValueReporter, ClaimCharge, QuotaResource, QuotaStatus, ResourceList } from './usage.js';
export { QuotaController, claimRefOf } from './quota-controller.js';
export type { QuotaControllerOptions } from './quota-controller.js';
