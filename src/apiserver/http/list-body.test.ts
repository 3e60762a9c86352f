/**
 * writeListBody: a long list streamed in Buffers is exactly the head, the items' JSON joined by
 * commas and the tail, whatever the chunk size (items larger than a chunk, a head larger than
 * a chunk), through a real Writable that is behind after every write (each waits for 'drain').
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { Store } from '../../store/types.js';
import { CachedKeyValue } from '../../store/etcd/cached-key-value.js';
import { ValueSlabs } from '../../store/etcd/value-slabs.js';
import type { ResourceType } from '../registry/resource-type.js';
import { LazyObject } from '../rest/lazy-object.js';
import { ObjectStore } from '../storage/object-store.js';
import { writeListBody } from './list-body.js';

const rt = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as unknown as ResourceType;
/** Only embedsRevision is read by the text and byte paths: a stand-in for the etcd store (mocked). */
const etcdLike = new ObjectStore({ embedsRevision: false } as unknown as Store);

function items(): LazyObject[] {
  const slabs = new ValueSlabs();
  const out: LazyObject[] = [];
  for (let i = 0; i < 60; i++) {
    const name = `cm-${i}-${'é'.repeat(i % 7)}`;
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'n' }, data: { pad: 'x'.repeat(i * 13), u: '😀' } });
    const kv = { key: `/registry/core/configmaps/n/${name}`, value: text, createRevision: 3, modRevision: 100 + i };
    switch (i % 4) {
      case 0: // held as bytes: copied from them
        out.push(LazyObject.fromStore(etcdLike, rt, CachedKeyValue.of(kv.key, text, 3, 100 + i, slabs)));
        break;
      case 1: // a string: its spliced text
        out.push(LazyObject.fromStore(etcdLike, rt, kv));
        break;
      case 2: // bytes whose text is not as the encoder writes it: parsed and serialized
        out.push(LazyObject.fromStore(etcdLike, rt, CachedKeyValue.of(kv.key, text.replace('"metadata":{', '"metadata":{"resourceVersion":"1",'), 3, 100 + i)));
        break;
      default: // an object made by the server
        out.push(LazyObject.of(JSON.parse(text) as never));
    }
  }
  return out;
}

/** A Writable that takes each write a turn later and is behind after every one (highWaterMark 1). */
function slowSink(): { sink: Writable; pieces: Buffer[]; ended: Promise<void>; drains: () => number } {
  const pieces: Buffer[] = [];
  let drains = 0;
  const sink = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, cb) {
      pieces.push(Buffer.from(chunk));
      setImmediate(cb);
    },
  });
  sink.on('drain', () => drains++);
  const ended = new Promise<void>((resolve, reject) => {
    sink.on('finish', resolve);
    sink.on('error', reject);
  });
  return { sink, pieces, ended, drains: () => drains };
}

test('the body is the head, the items joined by commas and the tail, for every chunk size', async () => {
  const head = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"159","continue":"${'c'.repeat(40)}"},"items":[`;
  const want = `${head}${items()
    .map((i) => i.json())
    .join(',')}]}`;
  for (const chunkBytes of [1, 7, 64, 300, 1000, 4096, 1 << 20]) {
    const { sink, pieces, ended, drains } = slowSink();
    writeListBody(sink, head, items(), chunkBytes);
    await ended;
    const body = Buffer.concat(pieces).toString('utf8');
    assert.equal(body, want, `chunk ${chunkBytes}`);
    assert.ok(JSON.parse(body), `chunk ${chunkBytes}`);
    // A piece is at most a chunk, unless it holds a single piece larger than one.
    const largestPiece = Math.max(Buffer.byteLength(head), ...items().map((i) => Buffer.byteLength(i.json()) + 1));
    for (const p of pieces) assert.ok(p.length <= Math.max(chunkBytes, largestPiece), `chunk ${chunkBytes}: a piece of ${p.length}`);
    if (chunkBytes < Buffer.byteLength(want)) assert.ok(drains() > 0, `chunk ${chunkBytes}: waited for drain`);
  }
});

test('an empty list and a list of one', async () => {
  for (const list of [[], items().slice(0, 1)]) {
    const { sink, pieces, ended } = slowSink();
    writeListBody(sink, '{"items":[', list, 64);
    await ended;
    assert.equal(Buffer.concat(pieces).toString('utf8'), `{"items":[${list.map((i) => i.json()).join(',')}]}`);
  }
});
