/**
 * Stored text sent as is on a backend that assigns revisions while writing (etcd): the
 * resourceVersion is spliced into the text instead of a parse and a stringify.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KeyValue, Store } from '../../store/types.js';
import type { ResourceType } from '../registry/resource-type.js';
import { CachedKeyValue } from '../../store/etcd/cached-key-value.js';
import { ValueSlabs } from '../../store/etcd/value-slabs.js';
import { ObjectStore, withResourceVersion, writeSpliced } from './object-store.js';

const rt = { group: 'example.io', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true } as unknown as ResourceType;
/** Only embedsRevision is read by rawIfExact: a stand-in for the etcd store (mocked). */
const etcdLike = new ObjectStore({ embedsRevision: false } as unknown as Store);
const kv = (value: string, modRevision = 42): KeyValue => ({ key: '/k', value, createRevision: 7, modRevision });

test('mocked store without embedded revisions: the stored text with the resourceVersion spliced in is the decoded object', () => {
  const texts = [
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"a","namespace":"n","uid":"u"},"spec":{"x":"é","y":[1,2]}}',
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{}}',
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"b","annotations":{"last":"{\\"resourceVersion\\" is quoted\\"}"}}}',
  ];
  for (const text of texts) {
    const raw = etcdLike.rawIfExact(rt, kv(text));
    assert.ok(raw !== undefined, text);
    assert.deepEqual(JSON.parse(raw), etcdLike.decode(rt, kv(text)));
    assert.equal((JSON.parse(raw) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, '42');
  }
  // A delete event: the last stored text with the delete's revision.
  const deleted = etcdLike.rawIfExact(rt, kv(texts[0], 50), true);
  assert.equal((JSON.parse(deleted!) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, '50');
});

test('text that is not exactly as the encoder writes it is left to the parser', () => {
  const cases = [
    // Another version: decode sets apiVersion.
    '{"apiVersion":"example.io/v2","kind":"Widget","metadata":{"name":"a"}}',
    // A resourceVersion already there (written by another program, or inside a reference).
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"a","resourceVersion":"3"}}',
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"ref":{"resourceVersion":"3"}}}',
    // Fields in another order.
    '{"apiVersion":"example.io/v1","metadata":{"name":"a"},"kind":"Widget"}',
    '{"apiVersion":"example.io/v1","kind":"Widget","spec":{},"metadata":{"name":"a"}}',
    '{"apiVersion":"example.io/v1","kind":"Wid\\"get","metadata":{"name":"a"}}',
  ];
  for (const text of cases) assert.equal(etcdLike.rawIfExact(rt, kv(text)), undefined, text);
  assert.equal(
    withResourceVersion('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}', 2, 9),
    '{"apiVersion":"v1","kind":"Pod","metadata":{"resourceVersion":"9","name":"p"}}',
  );
});

test("mocked store without embedded revisions, a value held as bytes (the etcd watch cache's): the spliced bytes are exactly the spliced text, and absent where it is", () => {
  const texts = [
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"a","namespace":"n","uid":"u"},"spec":{"x":"é","y":[1,2]}}',
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{}}',
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"b","annotations":{"last":"{\\"resourceVersion\\" is quoted\\"}"}}}',
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"日本語","labels":{"ü":"😀"}},"data":"𝄞"}',
    '{"apiVersion":"example.io/v1","kind":"Other","metadata":{}}',
    '{"apiVersion":"example.io/v1","kind":"Other","metadata":{"name":"o"}}',
    // Not as the encoder writes it, or with a resourceVersion: left to the parser.
    '{"apiVersion":"example.io/v2","kind":"Widget","metadata":{"name":"a"}}',
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"a","resourceVersion":"3"}}',
    '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"ref":{"resourceVersion":"3"}}}',
    '{"apiVersion":"example.io/v1","metadata":{"name":"a"},"kind":"Widget"}',
    '{"apiVersion":"example.io/v1","kind":"Wídget","metadata":{"name":"a"}}',
    '{"apiVersion":"exämple.io/v1","kind":"Widget","metadata":{"name":"a"}}',
    '{"apiVersion":"example.io/v1","kind":"Widget"',
    '',
  ];
  const slabs = new ValueSlabs();
  for (const text of texts) {
    for (const held of [CachedKeyValue.of('/k', text, 7, 42, slabs), CachedKeyValue.of('/k', text, 7, 42)]) {
      const want = etcdLike.rawIfExact(rt, held);
      const spliced = etcdLike.exactBytes(rt, held);
      // Asked again (the value remembers what it was searched for): the same answer.
      assert.deepEqual(etcdLike.exactBytes(rt, held), spliced, text);
      // Another kind of the same version (not the resource type's usual start): the same too.
      assert.deepEqual(etcdLike.exactBytes({ ...rt, kind: 'Gadget' }, held)?.at, spliced?.at, text);
      if (want === undefined) {
        assert.equal(spliced, undefined, text);
        continue;
      }
      assert.ok(spliced, text);
      assert.equal(spliced.byteLength, Buffer.byteLength(want), text);
      // Written at an offset into a larger buffer, between other bytes.
      const target = Buffer.alloc(spliced.byteLength + 4, 0x20);
      assert.equal(writeSpliced(spliced, target, 2), spliced.byteLength);
      assert.equal(target.toString('utf8'), `  ${want}  `, text);
    }
  }
  // A plain KeyValue (a string) and a store that embeds revisions have no bytes to copy.
  assert.equal(etcdLike.exactBytes(rt, kv(texts[0])), undefined);
  assert.equal(new ObjectStore({ embedsRevision: true } as unknown as Store).exactBytes(rt, CachedKeyValue.of('/k', texts[0], 7, 42)), undefined);
});
