/**
 * The string formats Kubernetes checks in CRD schemas (the kube-openapi registry plus the
 * k8s-* name formats). Formats not listed here are ignored, as Kubernetes ignores them;
 * numeric formats (int32, int64, float, double) constrain nothing.
 */
import { isIP } from 'node:net';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$/u;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/; // "" is zero bytes
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_PART = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';
const RGBCOLOR = new RegExp(`^rgb\\(${RGB_PART},${RGB_PART},${RGB_PART}\\)$`);
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const BSON_OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3,6})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12,15}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14}|^(81[0-9]{14,17}))$/;
const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+(\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*$/;
const EMAIL_DOMAIN = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+(\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*$|^\[[^\][\\]*\]$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/;
const GO_DURATION = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const LOOSE_DURATION = /^\s*(?:\d+\s*[A-Za-zµ]+\s*)+$/;
const DURATION_PART = /(\d+)\s*([A-Za-zµ]+)/g;
const DURATION_UNITS: readonly (readonly string[])[] = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[m - 1];
}

function isDate(s: string): boolean {
  const m = DATE.exec(s);
  return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** Parses the date-time layouts kube-openapi accepts; returns undefined when invalid. */
export function parseDateTime(s: string): Date | undefined {
  const m = DATE_TIME.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi] = [m[1], m[2], m[3], m[4], m[5]].map(Number);
  const sec = m[6] ? Number(m[6]) : 0;
  if (!validDate(y, mo, d) || h > 23 || mi > 59 || sec > 59) return undefined;
  let offsetMin = 0;
  const zone = m[8];
  if (zone && zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const zh = Number(digits.slice(0, 2));
    const zm = Number(digits.slice(2));
    if (zh > 23 || zm > 59) return undefined;
    offsetMin = (zone[0] === '-' ? -1 : 1) * (zh * 60 + zm);
  }
  const ms = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  return new Date(Date.UTC(y, mo - 1, d, h, mi, sec) + Math.floor(ms) - offsetMin * 60_000);
}

function isDuration(s: string): boolean {
  if (s === '0' || GO_DURATION.test(s)) return true;
  if (!LOOSE_DURATION.test(s)) return false;
  for (const match of s.matchAll(DURATION_PART)) {
    const unit = match[2].toLowerCase();
    const known = DURATION_UNITS.some((variants) => variants.some((v, i) => v === unit || (i === variants.length - 1 && unit.startsWith(v))));
    if (known) return true;
  }
  return false;
}

function isEmail(s: string): boolean {
  const at = s.lastIndexOf('@');
  if (at <= 0 || at === s.length - 1) return false;
  const local = s.slice(0, at);
  const domain = s.slice(at + 1);
  const quoted = local.startsWith('"') && local.endsWith('"') && local.length >= 2;
  return (quoted || EMAIL_LOCAL.test(local)) && EMAIL_DOMAIN.test(domain);
}

function isHostname(s: string): boolean {
  if (!HOSTNAME.test(s) || Buffer.byteLength(s) > 255) return false;
  return s.split('.').every((p) => Buffer.byteLength(p) <= 63);
}

function isURI(s: string): boolean {
  if (s.length === 0) return false;
  if (s.startsWith('/')) return !/\s/.test(s);
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  const v = isIP(ip);
  if (!v || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (v === 4 ? 32 : 128);
}

function isMAC(s: string): boolean {
  return (
    /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(s) ||
    /^([0-9A-Fa-f]{2}[:-]){7}[0-9A-Fa-f]{2}$/.test(s) ||
    /^([0-9A-Fa-f]{2}[:-]){19}[0-9A-Fa-f]{2}$/.test(s) ||
    /^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$/.test(s) ||
    /^([0-9A-Fa-f]{4}\.){3}[0-9A-Fa-f]{4}$/.test(s) ||
    /^([0-9A-Fa-f]{4}\.){9}[0-9A-Fa-f]{4}$/.test(s)
  );
}

function isISBN10(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (i + 1) * (d[i] === 'X' ? 10 : Number(d[i]));
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(d[12]);
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/[ -]/g, '');
  if (!CREDIT_CARD.test(d)) return false;
  let sum = 0;
  let double = false;
  for (let i = d.length - 1; i >= 0; i--) {
    let n = Number(d[i]);
    if (double) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The checks of every format Kubernetes knows, by name. */
export const FORMATS: ReadonlyMap<string, (s: string) => boolean> = new Map<string, (s: string) => boolean>([
  ['bsonobjectid', (s) => BSON_OBJECT_ID.test(s)],
  ['uri', isURI],
  ['email', isEmail],
  ['hostname', isHostname],
  ['ipv4', (s) => isIP(s) === 4],
  ['ipv6', (s) => isIP(s) === 6],
  ['cidr', isCIDR],
  ['mac', isMAC],
  ['uuid', (s) => UUID.test(s)],
  ['uuid3', (s) => UUID3.test(s)],
  ['uuid4', (s) => UUID4.test(s)],
  ['uuid5', (s) => UUID5.test(s)],
  ['isbn', (s) => isISBN10(s) || isISBN13(s)],
  ['isbn10', isISBN10],
  ['isbn13', isISBN13],
  ['creditcard', isCreditCard],
  ['ssn', (s) => SSN.test(s)],
  ['hexcolor', (s) => HEXCOLOR.test(s)],
  ['rgbcolor', (s) => RGBCOLOR.test(s)],
  ['byte', (s) => BASE64.test(s)],
  ['password', () => true],
  ['date', isDate],
  ['date-time', (s) => parseDateTime(s) !== undefined],
  ['datetime', (s) => parseDateTime(s) !== undefined],
  ['duration', isDuration],
  ['k8s-dns1123subdomain', (s) => s.length <= 253 && DNS1123_SUBDOMAIN.test(s)],
  ['k8s-dns1123label', (s) => s.length <= 63 && DNS1123_LABEL.test(s)],
  ['k8s-dns1035label', (s) => s.length <= 63 && DNS1035_LABEL.test(s)],
]);
