/**
 * HPACK: RFC 7541's Appendix C examples (integers, literals, requests and responses with and
 * without Huffman coding, the dynamic table after each block, eviction), the Huffman code
 * itself, and the encoder read back by the decoder.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HpackDecoder, HpackError, encodeHeaders, readInteger, writeInteger } from './hpack.js';
import { huffmanDecode, huffmanEncode } from './huffman.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('HPACK integers (RFC 7541, C.1)', () => {
  test('10 with a 5-bit prefix, 1337 with a 5-bit prefix, 42 at an octet boundary', () => {
    for (const [value, prefix, bytes] of [
      [10, 5, [0x0a]],
      [1337, 5, [0x1f, 0x9a, 0x0a]],
      [42, 8, [0x2a]],
    ] as const) {
      const out: number[] = [];
      writeInteger(out, value, prefix, 0);
      assert.deepEqual(out, bytes);
      assert.equal(readInteger(Uint8Array.from(bytes), { pos: 0 }, prefix), value);
    }
  });
});

describe('HPACK header fields (RFC 7541, C.2)', () => {
  test('literal with indexing: added to the table', () => {
    const d = new HpackDecoder();
    assert.deepEqual(d.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572')), [['custom-key', 'custom-header']]);
    assert.deepEqual(d.table, [['custom-key', 'custom-header']]);
    assert.equal(d.tableSize, 55);
  });
  test('literal without indexing and never indexed: the table stays empty', () => {
    const d = new HpackDecoder();
    assert.deepEqual(d.decode(hex('040c 2f73 616d 706c 652f 7061 7468')), [[':path', '/sample/path']]);
    assert.deepEqual(d.decode(hex('1008 7061 7373 776f 7264 0673 6563 7265 74')), [['password', 'secret']]);
    assert.equal(d.tableSize, 0);
  });
  test('indexed (static)', () => {
    assert.deepEqual(new HpackDecoder().decode(hex('82')), [[':method', 'GET']]);
  });
});

const request1 = [
  [':method', 'GET'],
  [':scheme', 'http'],
  [':path', '/'],
  [':authority', 'www.example.com'],
];
const request2 = [...request1, ['cache-control', 'no-cache']];
const request3 = [
  [':method', 'GET'],
  [':scheme', 'https'],
  [':path', '/index.html'],
  [':authority', 'www.example.com'],
  ['custom-key', 'custom-value'],
];
const table3 = [
  ['custom-key', 'custom-value'],
  ['cache-control', 'no-cache'],
  [':authority', 'www.example.com'],
];

describe('HPACK requests on one connection (RFC 7541, C.3 and C.4)', () => {
  test('without Huffman coding', () => {
    const d = new HpackDecoder();
    assert.deepEqual(d.decode(hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d')), request1);
    assert.equal(d.tableSize, 57);
    assert.deepEqual(d.decode(hex('8286 84be 5808 6e6f 2d63 6163 6865')), request2);
    assert.equal(d.tableSize, 110);
    assert.deepEqual(d.decode(hex('8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65')), request3);
    assert.deepEqual(d.table, table3);
    assert.equal(d.tableSize, 164);
  });
  test('with Huffman coding', () => {
    const d = new HpackDecoder();
    assert.deepEqual(d.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff')), request1);
    assert.deepEqual(d.decode(hex('8286 84be 5886 a8eb 1064 9cbf')), request2);
    assert.deepEqual(d.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')), request3);
    assert.deepEqual(d.table, table3);
    assert.equal(d.tableSize, 164);
  });
});

const date1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
const location = 'https://www.example.com';
const cookie = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';

describe('HPACK responses with a 256-octet table: eviction (RFC 7541, C.5 and C.6)', () => {
  test('without Huffman coding', () => {
    const d = new HpackDecoder(256);
    d.decode(
      hex(
        '4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
      ),
    );
    assert.equal(d.tableSize, 222);
    assert.deepEqual(d.decode(hex('4803 3330 37c1 c0bf')), [
      [':status', '307'],
      ['cache-control', 'private'],
      ['date', date1],
      ['location', location],
    ]);
    assert.equal(d.tableSize, 222);
  });
  test('with Huffman coding', () => {
    const d = new HpackDecoder(256);
    assert.deepEqual(
      d.decode(hex('4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3')),
      [
        [':status', '302'],
        ['cache-control', 'private'],
        ['date', date1],
        ['location', location],
      ],
    );
    assert.equal(d.tableSize, 222);
    assert.deepEqual(d.decode(hex('4883 640e ffc1 c0bf')), [
      [':status', '307'],
      ['cache-control', 'private'],
      ['date', date1],
      ['location', location],
    ]);
    assert.deepEqual(
      d.decode(
        hex(
          '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
        ),
      ),
      [
        [':status', '200'],
        ['cache-control', 'private'],
        ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'],
        ['location', location],
        ['content-encoding', 'gzip'],
        ['set-cookie', cookie],
      ],
    );
    assert.deepEqual(d.table, [
      ['set-cookie', cookie],
      ['content-encoding', 'gzip'],
      ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'],
    ]);
    assert.equal(d.tableSize, 215);
  });
});

describe('HPACK errors and the encoder', () => {
  test('an index beyond the table, a size update above the limit, a cut block: HpackError', () => {
    assert.throws(() => new HpackDecoder().decode(hex('be')), HpackError);
    assert.throws(() => new HpackDecoder(4096).decode(hex('3fe21f')), HpackError);
    assert.throws(() => new HpackDecoder().decode(hex('400a 6375')), HpackError);
  });
  test('Huffman: every byte round-trips; EOS and bad padding are refused', () => {
    const all = String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i));
    assert.equal(huffmanDecode(huffmanEncode(all), 0, huffmanEncode(all).length), all);
    assert.equal(huffmanEncode('www.example.com').toString('hex'), 'f1e3c2e5f23a6ba0ab90f4ff');
    assert.throws(() => huffmanDecode(hex('ffffffff'), 0, 4), /EOS/);
    // '0' (00000) then 3 zero bits of padding.
    assert.throws(() => huffmanDecode(hex('00'), 0, 1), /padding/);
  });
  test('the encoder: static entries by index, other fields as literals without indexing', () => {
    const fields: Array<[string, string]> = [
      [':method', 'POST'],
      [':path', '/etcdserverpb.KV/Txn'],
      ['content-type', 'application/grpc'],
      ['grpc-timeout', '15000m'],
      ['x-long', 'v'.repeat(300)],
    ];
    const block = encodeHeaders(fields);
    assert.equal(block[0], 0x83);
    const d = new HpackDecoder();
    assert.deepEqual(d.decode(block), fields);
    assert.equal(d.tableSize, 0);
  });
});
