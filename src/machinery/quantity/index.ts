export {
  MAX_QUANTITY_EXPONENT,
  MAX_QUANTITY_LENGTH,
  QUANTITY_PATTERN,
  Quantity,
  QuantityError,
  compareQuantities,
  isQuantity,
  parseQuantity,
  type QuantityFormat,
} from './quantity.js';
