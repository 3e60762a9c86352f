export {
  DNS1123_LABEL_MAX_LENGTH,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  LABEL_VALUE_MAX_LENGTH,
  QUALIFIED_NAME_MAX_LENGTH,
  byteLength,
  emptyError,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  maxLenError,
  regexError,
} from './names.js';
export { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, fieldTypeInvalid, formatBadValue } from './field-errors.js';
export { TOTAL_ANNOTATION_SIZE_LIMIT, validateAnnotations, validateLabelName, validateLabels } from './labels.js';
