/**
 * The grammar of a network target written `host:port`: a DNS hostname, an IPv4 literal or an
 * IPv6 literal in brackets, then a port from 1 to 65535. Nothing else — no `unix@`, no
 * scheme, no path, no zone id, no whitespace, no characters a config format treats as
 * special (`#`, `"`, `;`, newlines …). One grammar is written two ways: a regular expression
 * (RE2-compatible, for CRD `pattern`s, so the API server answers 422 before anything is
 * stored) and `parseHostPort` (for the code that writes configs, which checks again).
 *
 * `linkLocalOrMetadata` says why an address must not be a target by default: link-local
 * ranges (169.254.0.0/16, fe80::/10) and the cloud metadata endpoints, whichever way they
 * are spelled (IPv4-mapped, NAT64, names).
 */
import { isIP } from 'node:net';

const HEX = '[0-9a-fA-F]{1,4}';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
/** A DNS label: letters, digits and inner hyphens, at most 63 characters. */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** The last label starts with a letter, so a hostname is never mistaken for a number. */
const LAST_LABEL = '[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOSTNAME = `(?:${LABEL}\\.)*${LAST_LABEL}`;
const PORT = '(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';

function groups(count: number): string {
  return count === 0 ? '' : `${HEX}(?::${HEX}){${count - 1}}`;
}

/** Every spelling of an IPv6 address (RFC 4291 2.2), without a zone id. */
function ipv6Pattern(): string {
  const forms = [`${groups(8)}`, `(?:${HEX}:){6}${IPV4}`];
  for (let left = 0; left <= 7; left++) {
    const right = 7 - left;
    forms.push(`${groups(left)}::${right > 0 ? `(?:${HEX}(?::${HEX}){0,${right - 1}})?` : ''}`);
  }
  for (let left = 0; left <= 5; left++) {
    forms.push(`${groups(left)}::(?:${HEX}:){0,${5 - left}}${IPV4}`);
  }
  return `(?:${forms.join('|')})`;
}

/** IPV6_PATTERN matches an IPv6 literal (no brackets), RE2-compatible. */
export const IPV6_PATTERN = ipv6Pattern();

/** HOST_PORT_PATTERN is the whole grammar, anchored, RE2-compatible: use it as a CRD `pattern`. */
export const HOST_PORT_PATTERN = `^(?:${HOSTNAME}|${IPV4}|\\[${IPV6_PATTERN}\\]):${PORT}$`;

/** The longest `host:port`: a 253-character hostname, a colon and five digits. */
export const HOST_PORT_MAX_LENGTH = 259;

/** What `host:port` means, in words, for error messages. */
export const HOST_PORT_EXPECTED = 'host:port, where host is a DNS hostname, an IPv4 address or an IPv6 address in brackets, and port is 1-65535';

const hostPortRegex = new RegExp(HOST_PORT_PATTERN);

/** A HostPort is a parsed target. `host` is bare (no brackets) and lower-case. */
export interface HostPort {
  host: string;
  port: number;
  kind: 'dns' | 'ipv4' | 'ipv6';
}

/** parseHostPort reads `host:port` by the grammar above; it returns an error message otherwise. */
export function parseHostPort(text: unknown): HostPort | { error: string } {
  if (typeof text !== 'string') return { error: `want a string: ${HOST_PORT_EXPECTED}` };
  if (text.length > HOST_PORT_MAX_LENGTH || !hostPortRegex.test(text)) return { error: `want ${HOST_PORT_EXPECTED}` };
  const colon = text.lastIndexOf(':');
  const rawHost = text.slice(0, colon);
  const port = Number(text.slice(colon + 1));
  if (rawHost.startsWith('[')) {
    const host = rawHost.slice(1, -1).toLowerCase();
    if (isIP(host) !== 6) return { error: `want ${HOST_PORT_EXPECTED}` };
    return { host, port, kind: 'ipv6' };
  }
  if (isIP(rawHost) === 4) return { host: rawHost, port, kind: 'ipv4' };
  if (rawHost.length > 253) return { error: `want ${HOST_PORT_EXPECTED} (a hostname has at most 253 characters)` };
  return { host: rawHost.toLowerCase(), port, kind: 'dns' };
}

/** isHostPortError tells a parse failure from a HostPort. */
export function isHostPortError(value: HostPort | { error: string }): value is { error: string } {
  return 'error' in value;
}

/** isValidHost says whether a bare host (no brackets, no port) is a hostname or an IP literal. */
export function isValidHost(host: string): boolean {
  if (isIP(host) !== 0) return true;
  return host.length <= 253 && new RegExp(`^${HOSTNAME}$`).test(host);
}

/** Names of cloud metadata services (lower-case, without a trailing dot). */
export const METADATA_HOSTNAMES: readonly string[] = [
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.com',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
  'metadata.packet.net',
];

/** IPv4 addresses of metadata services outside 169.254.0.0/16. */
const METADATA_IPV4: readonly string[] = ['100.100.100.200', '192.0.0.192'];

function ipv4Octets(ip: string): number[] {
  return ip.split('.').map(Number);
}

function ipv4Reason(ip: string): string | undefined {
  const [a, b] = ipv4Octets(ip);
  if (a === 169 && b === 254) return `${ip} is link-local (169.254.0.0/16, where cloud metadata services answer)`;
  if (METADATA_IPV4.includes(ip)) return `${ip} is a cloud metadata service`;
  return undefined;
}

/** expandIPv6 turns an IPv6 literal into its eight 16-bit groups. */
export function expandIPv6(ip: string): number[] {
  let text = ip.toLowerCase();
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = ipv4Octets(v4[1]);
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, -v4[1].length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head);
  const right = [...(rest === undefined ? [] : parse(rest)), ...tail];
  if (rest === undefined) return [...left, ...right];
  const zeros = new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}

function embeddedIPv4(g: number[]): string {
  return `${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`;
}

function ipv6Reason(ip: string): string | undefined {
  const g = expandIPv6(ip);
  if ((g[0] & 0xffc0) === 0xfe80) return `${ip} is link-local (fe80::/10)`;
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) {
    return `${ip} is a cloud metadata service (fd00:ec2::254)`;
  }
  const mapped = g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0);
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (mapped || nat64) {
    const inner = ipv4Reason(embeddedIPv4(g));
    if (inner) return `${ip} embeds an IPv4 address: ${inner}`;
  }
  return undefined;
}

/**
 * linkLocalOrMetadata says why `host` (a bare hostname or IP literal) is link-local or a
 * cloud metadata endpoint, or undefined when it is neither.
 */
export function linkLocalOrMetadata(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  switch (isIP(bare)) {
    case 4:
      return ipv4Reason(bare);
    case 6:
      return ipv6Reason(bare);
    default: {
      const name = bare.toLowerCase().replace(/\.$/, '');
      if (METADATA_HOSTNAMES.includes(name)) return `${name} is a cloud metadata service`;
      return undefined;
    }
  }
}

/**
 * LINK_LOCAL_OR_METADATA_PATTERN matches (RE2 and JavaScript alike) the lower-cased `host:port`
 * spellings of link-local and metadata addresses a CRD can recognise without parsing IPv6:
 * used in a CEL rule on tenants' claims (`self.address.lowerAscii().matches(…)`). The
 * provider's `linkLocalOrMetadata` is exact and checks again.
 */
export const LINK_LOCAL_OR_METADATA_PATTERN =
  '^(?:169\\.254\\.[0-9.]+|100\\.100\\.100\\.200|192\\.0\\.0\\.192|' +
  `(?:${METADATA_HOSTNAMES.map((n) => n.replace(/\./g, '\\.')).join('|')})|` +
  '\\[fe[89ab][0-9a-f]:[^\\]]*\\]|\\[fd00:0*ec2:[^\\]]*\\]|' +
  '\\[[0:]*(?:ffff:)?(?:0:)?169\\.254\\.[0-9.]+\\]|\\[[0:]*(?:ffff:)?(?:0:)?a9fe:[0-9a-f]{1,4}\\]|' +
  '\\[64:ff9b:[^\\]]*\\]):[0-9]+$';
