import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseCsv, parseTokenFile } from './token-file.js';
import type { UserInfo } from './user-info.js';

describe('parseCsv', () => {
  const cases: Array<{ reason: string; input: string; want?: string[][]; error?: RegExp }> = [
    { reason: 'plain fields', input: 'a,b,c\n', want: [['a', 'b', 'c']] },
    { reason: 'no final newline', input: 'a,b', want: [['a', 'b']] },
    {
      reason: 'CRLF line ends',
      input: 'a,b\r\nc,d\r\n',
      want: [
        ['a', 'b'],
        ['c', 'd'],
      ],
    },
    { reason: 'empty lines are skipped', input: '\n\na\n\r\n\nb\n', want: [['a'], ['b']] },
    { reason: 'a trailing comma is an empty field', input: 'a,b,\n', want: [['a', 'b', '']] },
    { reason: 'spaces are kept', input: ' a , b\n', want: [[' a ', ' b']] },
    { reason: 'a quoted field holds commas', input: 't,u,1,"g1,g2"\n', want: [['t', 'u', '1', 'g1,g2']] },
    { reason: 'a doubled quote is a quote', input: '"say ""hi""",x\n', want: [['say "hi"', 'x']] },
    { reason: 'a quoted field spans lines', input: '"a\nb",c\nd\n', want: [['a\nb', 'c'], ['d']] },
    { reason: 'an empty quoted field', input: '"",x', want: [['', 'x']] },
    { reason: 'a byte-order mark is dropped', input: '\ufeffa,b\n', want: [['a', 'b']] },
    { reason: 'a bare quote is an error', input: 'a,b"c\n', error: /line 1: bare " in an unquoted field/ },
    { reason: 'text after a closing quote is an error', input: 'x\n"a"b,c\n', error: /line 2: unexpected "b" after a quoted field/ },
    { reason: 'an unclosed quote is an error', input: 'a,"b\n', error: /quoted field is not closed/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (c.error) assert.throws(() => parseCsv(c.input), c.error);
      else assert.deepEqual(parseCsv(c.input), c.want);
    });
  }

  test('every record written as quoted CSV reads back the same', () => {
    const field = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ',', '"', '\n', '\r', ' ', 'é', ':') });
    const record = fc.array(field, { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 6 }), fc.constantFrom('\n', '\r\n'), (records, eol) => {
        const text = records.map((r) => r.map((f) => `"${f.replace(/"/g, '""')}"`).join(',')).join(eol);
        // A quoted CRLF reads as LF (as in Go's encoding/csv).
        const want = records.map((r) => r.map((f) => f.replace(/\r\n/g, '\n')));
        assert.deepEqual(parseCsv(text), want);
      }),
    );
  });

  test('unquoted fields without special characters read back the same', () => {
    const field = fc.string({ unit: fc.constantFrom('a', 'b', '1', ' ', ':', '-') });
    const record = fc.array(field, { minLength: 2, maxLength: 5 });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 6 }), (records) => {
        assert.deepEqual(parseCsv(records.map((r) => r.join(',')).join('\n')), records);
      }),
    );
  });
});

describe('parseTokenFile', () => {
  const cases: Array<{ reason: string; input: string; want?: Array<[string, UserInfo]>; error?: RegExp }> = [
    {
      reason: 'token, user and uid, without groups',
      input: 'abc,alice,1001\n',
      want: [['abc', { name: 'alice', uid: '1001', groups: ['system:authenticated'] }]],
    },
    {
      reason: 'a quoted group list',
      input: 'abc,bob,1002,"dev,ops"\n',
      want: [['abc', { name: 'bob', uid: '1002', groups: ['dev', 'ops', 'system:authenticated'] }]],
    },
    {
      reason: 'an unquoted single group',
      input: 'abc,bob,1002,dev\n',
      want: [['abc', { name: 'bob', uid: '1002', groups: ['dev', 'system:authenticated'] }]],
    },
    {
      reason: 'system:authenticated is not repeated, empty group names are dropped',
      input: 'abc,bob,7,"system:authenticated,,x"\n',
      want: [['abc', { name: 'bob', uid: '7', groups: ['system:authenticated', 'x'] }]],
    },
    { reason: 'an empty uid is left out', input: 't,carol,\n', want: [['t', { name: 'carol', groups: ['system:authenticated'] }]] },
    {
      reason: 'a record with an empty token is skipped',
      input: ',nobody,0\nt,u,1\n',
      want: [['t', { name: 'u', uid: '1', groups: ['system:authenticated'] }]],
    },
    {
      reason: 'a later record for the same token wins',
      input: 't,first,1\nt,second,2\n',
      want: [['t', { name: 'second', uid: '2', groups: ['system:authenticated'] }]],
    },
    { reason: 'columns after the groups are ignored', input: 't,u,1,g,extra\n', want: [['t', { name: 'u', uid: '1', groups: ['g', 'system:authenticated'] }]] },
    { reason: 'an empty file has no users', input: '', want: [] },
    { reason: 'fewer than three columns is an error', input: 't,u,1\nt2,u2\n', error: /tokens\.csv: record 2 has 2 column\(s\), expected at least 3/ },
    { reason: 'malformed CSV is an error', input: 't,"u\n', error: /cannot parse tokens\.csv: line 1: quoted field is not closed/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (c.error) assert.throws(() => parseTokenFile(c.input, 'tokens.csv'), c.error);
      else assert.deepEqual([...parseTokenFile(c.input, 'tokens.csv')], c.want);
    });
  }
});
