/**
 * Name and label syntax checks with Kubernetes' rules and messages. Each `is*` function
 * returns the list of problems in human words; an empty list means the value is valid.
 */

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERR_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_ERR_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_ERR_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** The longest DNS-1123 label (a namespace name, a label key's name part's cousin). */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** The longest DNS-1123 subdomain (most object names, label key prefixes). */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** The longest name part of a qualified name (label and annotation keys). */
export const QUALIFIED_NAME_MAX_LENGTH = 63;
/** The longest label value. */
export const LABEL_VALUE_MAX_LENGTH = 63;

const anchored = (fmt: string): RegExp => new RegExp(`^(?:${fmt})$`);
const dns1123LabelRe = anchored(DNS1123_LABEL_FMT);
const dns1123SubdomainRe = anchored(DNS1123_SUBDOMAIN_FMT);
const qualifiedNameRe = anchored(QUALIFIED_NAME_FMT);
const labelValueRe = anchored(LABEL_VALUE_FMT);

/** The length of a string in UTF-8 bytes, which is what Kubernetes' limits count. */
export function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/** A message saying a value exceeds `length` characters. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** A message saying a value must not be empty. */
export function emptyError(): string {
  return 'must be non-empty';
}

/** A message saying a value does not match `fmt`, with examples of valid values. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  const shown = examples.map((e) => `'${e}'`).join(',  or ');
  return `${msg} (e.g. ${shown}, regex used for validation is '${fmt}')`;
}

/** isDNS1123Label checks a lowercase RFC 1123 label such as a namespace name (at most 63 characters). */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is not a valid label can only be wrong because of its dots.
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_ERR_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/** isDNS1123Subdomain checks a lowercase RFC 1123 subdomain such as most object names (at most 253 characters). */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_ERR_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

/**
 * isQualifiedName checks a label or annotation key: an optional DNS-subdomain prefix and
 * `/`, then a name of at most 63 characters that starts and ends with an alphanumeric.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** isValidLabelValue checks a label value: empty, or at most 63 characters of the qualified-name alphabet. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(LABEL_VALUE_ERR_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * isValidPathSegmentName checks that a name can be used as one segment of a URL path
 * (every object name must pass this, whatever stricter rule its kind adds).
 */
export function isValidPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (value.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}
