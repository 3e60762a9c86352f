/**
 * Field paths and StatusCause builders whose messages read exactly like Kubernetes' field
 * errors, including the way Go prints the offending value (`Invalid value: "x"`, `5`,
 * `map[string]interface {}{"name":"a"}`).
 */
import type { StatusCause } from '../../machinery/errors.js';

/** Appends a field name to a path: `spec` + `replicas` → `spec.replicas`. */
export function childPath(base: string, name: string): string {
  return base ? `${base}.${name}` : name;
}

/** Appends a list index: `spec.items` + 2 → `spec.items[2]`. */
export function indexPath(base: string, i: number): string {
  return `${base}[${i}]`;
}

/** Appends a map key: `spec.labels` + `app` → `spec.labels[app]`. */
export function keyPath(base: string, key: string): string {
  return `${base}[${key}]`;
}

/** Quotes a string the way Go's %q does. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else if (c === 0x2028 || c === 0x2029 || (c >= 0x80 && c < 0xa0)) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Formats a float the way Go's %v does (shortest repr, exponent form outside [1e-4, 1e6)). */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mant, expStr] = n.toExponential().split('e');
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${mant}e${sign}${abs < 10 ? `0${abs}` : abs}`;
  }
  return String(n);
}

/** Formats a JSON number as Go prints a decoded JSON value: integers plainly, floats with %v. */
export function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return BigInt(n).toString();
  return goFloat(n);
}

/** Renders a value as Go's %#v renders a decoded JSON value (`map[string]interface {}{...}`). */
export function goSyntax(v: unknown, depth = 0): string {
  if (depth > 32) return '...';
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSyntax(x, depth + 1)).join(', ')}}`;
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort();
    const rec = v as Record<string, unknown>;
    return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSyntax(rec[k], depth + 1)}`).join(', ')}}`;
  }
  return String(v);
}

/** Renders the bad value of a field error the way Kubernetes does. */
export function badValue(v: unknown): string {
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return goSyntax(v);
}

function withDetail(head: string, detail: string): string {
  return detail ? `${head}: ${detail}` : head;
}

function cause(reason: string, field: string, message: string): StatusCause {
  return field ? { reason, message, field } : { reason, message };
}

export function required(field: string, detail = ''): StatusCause {
  return cause('FieldValueRequired', field, withDetail('Required value', detail));
}

export function forbidden(field: string, detail = ''): StatusCause {
  return cause('FieldValueForbidden', field, withDetail('Forbidden', detail));
}

export function invalid(field: string, value: unknown, detail: string): StatusCause {
  return cause('FieldValueInvalid', field, withDetail(`Invalid value: ${badValue(value)}`, detail));
}

export function typeInvalid(field: string, value: unknown, detail: string): StatusCause {
  return cause('FieldValueTypeInvalid', field, withDetail(`Invalid value: ${badValue(value)}`, detail));
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  const detail = supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return cause('FieldValueNotSupported', field, withDetail(`Unsupported value: ${badValue(value)}`, detail));
}

export function tooLong(field: string, max: number): StatusCause {
  const detail = max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
  return cause('FieldValueTooLong', field, `Too long: ${detail}`);
}

export function tooMany(field: string, actual: number, max: number): StatusCause {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
  return cause('FieldValueTooMany', field, actual >= 0 ? `Too many: ${actual}: ${detail}` : `Too many: ${detail}`);
}

export function duplicate(field: string, value: unknown): StatusCause {
  return cause('FieldValueDuplicate', field, `Duplicate value: ${badValue(value)}`);
}

/** The reasons that stop CEL rules from running, as Kubernetes treats them. */
const BLOCKING = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

export function isBlocking(c: StatusCause): boolean {
  return BLOCKING.has(c.reason);
}
