export { compileSchemaRules, resolveFieldPath, type NodeRule } from './schema-rules.js';
export { evaluateRule, compileRules, OUT_OF_BUDGET, type CompiledRule, type RuleInput } from './rules.js';
export { CostBudget, PER_CALL_LIMIT, PER_OBJECT_BUDGET } from './runtime-cost.js';
export { ValueConverter, parseGoDuration } from './values.js';
export { escapePropertyName } from './escape.js';
export { Quantity } from './quantity.js';
export { celEquals } from './library.js';
export {
  costErrorMessage,
  estimateCost,
  MAX_REQUEST_BYTES,
  ShapeCache,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  type Shape,
} from './cost.js';
