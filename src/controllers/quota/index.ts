/**
 * ClaimQuota: the controller that keeps every quota's `status.hard` and `status.used` current,
 * and (re-exported) the usage arithmetic it shares with the API server's admission plugin,
 * which lives in apis/quota so the API server need not import a controller.
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
} from '../../apis/quota/usage.js';
export type { BadValueReporter, ClaimCharge, QuotaResource, QuotaStatus, ResourceList } from '../../apis/quota/usage.js';
export { QuotaController, claimRefOf } from './quota-controller.js';
export type { QuotaControllerOptions } from './quota-controller.js';
