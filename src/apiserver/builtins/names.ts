/**
 * The name rules this folder uses. Most come from `src/machinery/validation`; the two it
 * does not have (DNS-1035 labels for CRD names and versions, and ConfigMap/Secret keys)
 * live here with the same style: each returns the problems, empty when valid.
 */
import { maxLenError, regexError } from '../../machinery/validation/index.js';

export {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  validateAnnotations,
  validateLabels,
} from '../../machinery/validation/index.js';

const dns1035Fmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035Re = new RegExp(`^(?:${dns1035Fmt})$`);
const configKeyFmt = '[-._a-zA-Z0-9]+';
const configKeyRe = new RegExp(`^(?:${configKeyFmt})$`);

/** Problems with `value` as an RFC 1035 label (starts with a letter, at most 63 characters). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!dns1035Re.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        dns1035Fmt,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/** Problems with `value` as a ConfigMap or Secret key. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!configKeyRe.test(value)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}
