/**
 * A class template's `$(claim.namespace)`, `$(claim.name)` and `$(claim.spec.<path>)`
 * placeholders, filled from a claim. The values are the tenant's, so what they produce is
 * checked for the field it lands in before anything reaches the target:
 * - `apiVersion` and `kind` take no placeholder (a claim never chooses what kind of object it gets);
 * - `metadata.name` must come out a DNS-1123 subdomain, `metadata.namespace` a DNS-1123 label,
 *   a label's value a label value;
 * - an ObserveOnly template takes no placeholder in `metadata.name` or `metadata.namespace`:
 *   a claim may not choose which existing object it reads.
 * A string that is only a placeholder takes the field's value and type; one the claim leaves
 * unset removes the field (the target's default applies). Filling is one pass: a value that
 * itself looks like a placeholder stays as it is.
 */
import { isPlainObject, type JsonObject, type JsonValue, type KObject } from '../../machinery/object.js';

const PLACEHOLDER = /\$\(claim\.([A-Za-z0-9_.-]+)\)/g;
const ONLY_PLACEHOLDER = /^\$\(claim\.([A-Za-z0-9_.-]+)\)$/;

/** A PlaceholderError says which manifest field a claim's value cannot fill, and why. */
export class PlaceholderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlaceholderError';
  }
}

/** DNS-1123 subdomain: lowercase alphanumerics, '-' and '.', starting and ending alphanumeric, at most 253. */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** DNS-1123 label: lowercase alphanumerics and '-', starting and ending alphanumeric, at most 63. */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A label value: empty, or alphanumerics, '-', '_' and '.', starting and ending alphanumeric, at most 63. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** isDnsSubdomain tells whether `s` is a DNS-1123 subdomain (a valid name for most kinds). */
export function isDnsSubdomain(s: string): boolean {
  return s.length <= 253 && DNS1123_SUBDOMAIN.test(s);
}

/** isDnsLabel tells whether `s` is a DNS-1123 label (a valid namespace). */
export function isDnsLabel(s: string): boolean {
  return s.length <= 63 && DNS1123_LABEL.test(s);
}

function claimField(claim: KObject, path: string): JsonValue | undefined {
  if (path === 'namespace') return claim.metadata.namespace;
  if (path === 'name') return claim.metadata.name;
  let at: unknown = claim;
  for (const part of path.split('.')) {
    if (!isPlainObject(at)) return undefined;
    at = at[part];
  }
  return at === undefined || (typeof at === 'object' && at !== null) ? undefined : (at as JsonValue);
}

const REMOVE = Symbol('remove');

/** The manifest fields a placeholder was found in, by path (`.metadata.name`). */
type Filled = Set<string>;

function fieldPath(parent: string, key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

function fill(value: JsonValue, claim: KObject, path: string, filled: Filled): JsonValue | typeof REMOVE {
  if (typeof value === 'string') {
    PLACEHOLDER.lastIndex = 0;
    if (!PLACEHOLDER.test(value)) return value;
    filled.add(path);
    const only = ONLY_PLACEHOLDER.exec(value);
    if (only) return claimField(claim, only[1]) ?? REMOVE;
    return value.replace(PLACEHOLDER, (_, p: string) => {
      const v = claimField(claim, p);
      return v === undefined || v === null ? '' : String(v);
    });
  }
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    value.forEach((item, i) => {
      const v = fill(item, claim, `${path}[${i}]`, filled);
      if (v !== REMOVE) out.push(v);
    });
    return out;
  }
  if (isPlainObject(value)) {
    const out: JsonObject = {};
    for (const [k, item] of Object.entries(value)) {
      const v = fill(item, claim, fieldPath(path, k), filled);
      if (v !== REMOVE) out[k] = v;
    }
    return out;
  }
  return value;
}

function describeValue(v: unknown): string {
  const text = JSON.stringify(v) ?? 'unset';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** check refuses what the claim's values made of the fields where they landed. */
function check(manifest: JsonObject, filled: Filled, options: { observeOnly: boolean }): void {
  for (const path of ['.apiVersion', '.kind']) {
    if (filled.has(path))
      throw new PlaceholderError(`the class template's manifest${path} holds a claim placeholder: a claim may not choose the kind of object it gets`);
  }
  const metadata = isPlainObject(manifest.metadata) ? manifest.metadata : {};
  if (options.observeOnly) {
    for (const path of ['.metadata.name', '.metadata.namespace']) {
      if (filled.has(path)) {
        throw new PlaceholderError(
          `the class template is ObserveOnly and its manifest${path} holds a claim placeholder: a claim may not choose which existing object it reads; name the object in the template`,
        );
      }
    }
  }
  if (filled.has('.metadata.name') && metadata.name !== undefined && !(typeof metadata.name === 'string' && isDnsSubdomain(metadata.name))) {
    throw new PlaceholderError(
      `manifest.metadata.name would be ${describeValue(metadata.name)} with the claim's values: want a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', at most 253)`,
    );
  }
  if (filled.has('.metadata.namespace') && metadata.namespace !== undefined && !(typeof metadata.namespace === 'string' && isDnsLabel(metadata.namespace))) {
    throw new PlaceholderError(
      `manifest.metadata.namespace would be ${describeValue(metadata.namespace)} with the claim's values: want a DNS-1123 label (lowercase letters, digits and '-', at most 63)`,
    );
  }
  const labels = isPlainObject(metadata.labels) ? metadata.labels : {};
  for (const [k, v] of Object.entries(labels)) {
    const path = fieldPath('.metadata.labels', k);
    if (filled.has(path) && !(typeof v === 'string' && v.length <= 63 && LABEL_VALUE.test(v))) {
      throw new PlaceholderError(
        `manifest${path} would be ${describeValue(v)} with the claim's values: want a label value (letters, digits, '-', '_' and '.', at most 63)`,
      );
    }
  }
}

/**
 * fillPlaceholders returns `manifest` with the claim's fields in its placeholders; it throws a
 * PlaceholderError naming the field when a value does not fit where it lands. It modifies nothing.
 */
export function fillPlaceholders(manifest: JsonObject, claim: KObject, options: { observeOnly: boolean }): JsonObject {
  const filled: Filled = new Set();
  const out = fill(manifest, claim, '', filled) as JsonObject;
  check(out, filled, options);
  return out;
}
