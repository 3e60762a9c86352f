import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FORMATS } from './formats.js';

const cases: { format: string; valid: string[]; invalid: string[] }[] = [
  {
    format: 'uuid',
    valid: ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'],
    invalid: ['123', 'g23e4567-e89b-12d3-a456-426614174000'],
  },
  { format: 'uuid4', valid: ['123e4567-e89b-42d3-a456-426614174000'], invalid: ['123e4567-e89b-12d3-a456-426614174000'] },
  {
    format: 'date-time',
    valid: ['2024-02-29T12:30:00Z', '2024-01-01T00:00:00.123456+02:00', '2024-01-01T10:00'],
    invalid: ['2023-02-29T00:00:00Z', '2024-01-01', 'yesterday'],
  },
  { format: 'date', valid: ['2024-02-29'], invalid: ['2024-13-01', '2024-02-30T00:00:00Z'] },
  { format: 'duration', valid: ['1h30m', '0', '-1.5s', '3 days', '2w'], invalid: ['forever', '1x', ''] },
  { format: 'ipv4', valid: ['10.0.0.1'], invalid: ['10.0.0.256', '::1'] },
  { format: 'ipv6', valid: ['::1', 'fe80::1'], invalid: ['10.0.0.1'] },
  { format: 'cidr', valid: ['10.0.0.0/8', 'fd00::/64'], invalid: ['10.0.0.0/33', '10.0.0.0'] },
  { format: 'hostname', valid: ['example.com', 'a-b.co', 'localhost'], invalid: ['-a.com', 'a..b', 'under_score.com', 'a.c'] },
  { format: 'email', valid: ['a@example.com'], invalid: ['a', '@example.com', 'a@'] },
  { format: 'uri', valid: ['https://example.com/x', '/relative/path'], invalid: ['not a uri', 'relative/path'] },
  { format: 'mac', valid: ['00:1a:2b:3c:4d:5e', '001a.2b3c.4d5e'], invalid: ['00:1a:2b:3c:4d'] },
  // '' is zero bytes: a Secret's value may be empty.
  { format: 'byte', valid: ['aGVsbG8=', 'YWJj', ''], invalid: ['abc', 'a$b='] },
  { format: 'isbn10', valid: ['0-306-40615-2'], invalid: ['0-306-40615-3'] },
  { format: 'isbn13', valid: ['978-0-306-40615-7'], invalid: ['978-0-306-40615-8'] },
  { format: 'creditcard', valid: ['4111111111111111'], invalid: ['4111111111111112'] },
  { format: 'hexcolor', valid: ['#fff', 'a0b1c2'], invalid: ['#ffff'] },
  { format: 'rgbcolor', valid: ['rgb(0, 128, 255)'], invalid: ['rgb(256,0,0)'] },
  { format: 'ssn', valid: ['123-45-6789'], invalid: ['123-456-789'] },
  { format: 'bsonobjectid', valid: ['507f1f77bcf86cd799439011'], invalid: ['507f1f77bcf86cd79943901'] },
  { format: 'k8s-dns1123label', valid: ['my-name'], invalid: ['My-Name', 'a.b'] },
  { format: 'k8s-dns1123subdomain', valid: ['a.b-c.d'], invalid: ['a..b'] },
  { format: 'k8s-dns1035label', valid: ['abc-1'], invalid: ['1abc'] },
];

describe('formats', () => {
  for (const c of cases) {
    test(c.format, () => {
      const check = FORMATS.get(c.format);
      assert.ok(check, `${c.format} is known`);
      for (const v of c.valid) assert.ok(check(v), `${c.format} accepts ${JSON.stringify(v)}`);
      for (const v of c.invalid) assert.ok(!check(v), `${c.format} rejects ${JSON.stringify(v)}`);
    });
  }

  test('numeric and unknown formats are not string formats', () => {
    for (const f of ['int32', 'int64', 'double', 'float', 'my-format']) assert.equal(FORMATS.has(f), false);
  });
});
