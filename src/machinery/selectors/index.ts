export {
  LabelSelector,
  formatLabelRequirement,
  formatLabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
  newLabelRequirement,
  requirementMatches,
  validateLabelSelector,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelectorObject,
  type LabelSelectorOperator,
  type LabelSelectorRequirement,
  type Labels,
} from './label-selector.js';
export { parseLabelSelector } from './label-selector-parser.js';
export {
  FieldSelector,
  assertFieldsSupported,
  escapeFieldValue,
  fieldLabelNotSupported,
  fieldSelectorFromSet,
  parseFieldSelector,
  unescapeFieldValue,
  type FieldOperator,
  type FieldRequirement,
} from './field-selector.js';
