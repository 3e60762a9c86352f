import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import fc from 'fast-check';
import {
  expandIPv6,
  HOST_PORT_PATTERN,
  IPV6_PATTERN,
  isHostPortError,
  LINK_LOCAL_OR_METADATA_PATTERN,
  linkLocalOrMetadata,
  parseHostPort,
} from './host-port.js';

const pattern = new RegExp(HOST_PORT_PATTERN);
const ipv6 = new RegExp(`^${IPV6_PATTERN}$`);
const linkLocalPattern = new RegExp(LINK_LOCAL_OR_METADATA_PATTERN);
const port = fc.integer({ min: 1, max: 65535 });

describe('parseHostPort and HOST_PORT_PATTERN', () => {
  const cases: { reason: string; input: string; want?: { host: string; port: number; kind: string } }[] = [
    { reason: 'hostname', input: 'db.example.com:5432', want: { host: 'db.example.com', port: 5432, kind: 'dns' } },
    { reason: 'single label', input: 'localhost:80', want: { host: 'localhost', port: 80, kind: 'dns' } },
    { reason: 'IPv4', input: '10.1.2.3:65535', want: { host: '10.1.2.3', port: 65535, kind: 'ipv4' } },
    { reason: 'IPv6', input: '[2001:DB8::1]:1', want: { host: '2001:db8::1', port: 1, kind: 'ipv6' } },
    { reason: 'IPv6 with IPv4 tail', input: '[::ffff:10.0.0.1]:80', want: { host: '::ffff:10.0.0.1', port: 80, kind: 'ipv6' } },
    { reason: 'the issue 10 attack: a Unix socket, port commented out', input: 'unix@/var/lib/mysql/mysqld.sock#:3306' },
    { reason: 'unix@ with a port', input: 'unix@sock:3306' },
    { reason: 'ipv4@ prefix', input: 'ipv4@10.0.0.1:80' },
    { reason: 'comment', input: 'a#b:80' },
    { reason: 'env variable', input: '${HOME}:80' },
    { reason: 'space', input: 'a b:80' },
    { reason: 'newline', input: 'a\n:80' },
    { reason: 'trailing newline', input: 'a:80\n' },
    { reason: 'quote', input: '"a":80' },
    { reason: 'port 0', input: 'a:0' },
    { reason: 'port 65536', input: 'a:65536' },
    { reason: 'leading zero port', input: 'a:01' },
    { reason: 'no port', input: 'a' },
    { reason: 'unbracketed IPv6', input: '::1:80' },
    { reason: 'zone id', input: '[fe80::1%25eth0]:80' },
    { reason: 'IPv4 octet too big', input: '1.2.3.256:80' },
    { reason: 'numeric last label', input: 'a.123:80' },
    { reason: 'label starting with a hyphen', input: '-a:80' },
    { reason: 'empty label', input: 'a..b:80' },
    { reason: 'label of 64 characters', input: `${'a'.repeat(64)}:80` },
    { reason: 'hostname over 253 characters', input: `${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}:80` },
    { reason: 'a scheme', input: 'http://a:80' },
    { reason: 'a path', input: 'a/b:80' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = parseHostPort(c.input);
      if (c.want) assert.deepEqual(got, c.want);
      else assert.ok(isHostPortError(got), `${JSON.stringify(c.input)} should be refused, got ${JSON.stringify(got)}`);
    });
  }

  test('every IPv6 spelling fast-check generates matches the IPv6 pattern and parses', () => {
    fc.assert(
      fc.property(fc.ipV6(), port, (ip, p) => {
        assert.ok(ipv6.test(ip), ip);
        assert.deepEqual(parseHostPort(`[${ip}]:${p}`), { host: ip.toLowerCase(), port: p, kind: 'ipv6' });
      }),
      { numRuns: 2000 },
    );
  });

  test('the IPv6 pattern accepts only what node:net calls IPv6', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-fA-F:.]{1,45}$/), (text) => {
        assert.equal(ipv6.test(text), isIP(text) === 6, text);
      }),
      { numRuns: 5000 },
    );
  });

  test('IPv4 addresses and domains parse', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.domain()), port, (host, p) => {
        const got = parseHostPort(`${host}:${p}`);
        assert.ok(!isHostPortError(got), `${host}:${p}: ${JSON.stringify(got)}`);
        assert.equal(got.port, p);
      }),
    );
  });

  test('a string with a character outside the grammar is always refused', () => {
    const bad = fc.constantFrom('#', '@', '/', '"', "'", ' ', '\n', '\r', '\t', '$', '{', '}', ';', '%', '\\', '\0', '\u2028', 'é');
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), bad, fc.string({ maxLength: 20 }), port, (a, c, b, p) => {
        const input = `${a}${c}${b}:${p}`;
        assert.ok(isHostPortError(parseHostPort(input)), JSON.stringify(input));
        assert.ok(!pattern.test(input), JSON.stringify(input));
      }),
    );
  });

  test('the pattern and the parser agree on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        assert.equal(pattern.test(text), !isHostPortError(parseHostPort(text)), JSON.stringify(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('linkLocalOrMetadata', () => {
  const refused = [
    '169.254.169.254',
    '169.254.170.2',
    '169.254.0.1',
    '100.100.100.200',
    'fe80::1',
    'FEBF::1',
    'fd00:ec2::254',
    'fd00:0ec2:0000:0000:0000:0000:0000:0254',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '::169.254.169.254',
    '64:ff9b::169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    'metadata.google.internal',
    'METADATA.GOOGLE.INTERNAL.',
    'metadata',
    'instance-data.ec2.internal',
  ];
  for (const host of refused) test(`refuses ${host}`, () => assert.ok(linkLocalOrMetadata(host), host));

  const allowed = [
    '127.0.0.1',
    '10.0.0.1',
    '169.253.255.255',
    '169.255.0.0',
    '::1',
    'fec0::1',
    'fe7f::1',
    'fd00:ec2::253',
    '::ffff:10.0.0.1',
    'db.internal',
    'metadata.example.com',
  ];
  for (const host of allowed) test(`allows ${host}`, () => assert.equal(linkLocalOrMetadata(host), undefined));

  test('every address in 169.254.0.0/16 and fe80::/10 is refused, and nothing just outside', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), (c, d) => {
        assert.ok(linkLocalOrMetadata(`169.254.${c}.${d}`));
        assert.ok(linkLocalOrMetadata(`::ffff:169.254.${c}.${d}`));
        assert.equal(linkLocalOrMetadata(`169.255.${c}.${d}`), undefined);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0xfe80, max: 0xfebf }), fc.integer({ min: 0, max: 0xffff }), (a, b) => {
        assert.ok(linkLocalOrMetadata(`${a.toString(16)}::${b.toString(16)}`));
      }),
    );
  });

  test('expandIPv6 gives eight groups for every spelling', () => {
    fc.assert(fc.property(fc.ipV6(), (ip) => assert.equal(expandIPv6(ip).length, 8, ip)));
  });

  test('the CRD pattern has no false positives: what it matches, the provider refuses too', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.ipV4(),
          fc.ipV6().map((ip) => `[${ip}]`),
          fc.domain(),
        ),
        port,
        (host, p) => {
          if (linkLocalPattern.test(`${host}:${p}`.toLowerCase())) assert.ok(linkLocalOrMetadata(host), host);
        },
      ),
      { numRuns: 3000 },
    );
  });

  test('the CRD pattern does not take a short first group for link-local: [fe8::] is 0fe8::, not fe80::/10', () => {
    for (const host of ['[fe8::]', '[fe8::1]', '[feb::1]', '[fe9:1::1]']) {
      assert.equal(linkLocalPattern.test(`${host}:80`), false, host);
      assert.equal(linkLocalOrMetadata(host), undefined, host);
    }
  });

  test('the CRD pattern catches the common spellings', () => {
    for (const host of [
      '169.254.169.254',
      '[fe80::1]',
      '[FE80::1]',
      '[fd00:ec2::254]',
      '[::ffff:169.254.169.254]',
      '[::ffff:a9fe:a9fe]',
      'metadata.google.internal',
      '[64:ff9b::a9fe:a9fe]',
      '100.100.100.200',
    ]) {
      assert.ok(linkLocalPattern.test(`${host}:80`.toLowerCase()), host);
    }
  });
});
