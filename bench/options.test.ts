import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BENCHMARKS, FULL_SIZES, QUICK_SIZES, parseBenchArgs, parseOnly } from './options.js';

describe('parseBenchArgs', () => {
  test('no arguments runs everything at full size into the default directory', () => {
    const o = parseBenchArgs([], '/out');
    assert.deepEqual(o.only, [...BENCHMARKS]);
    assert.deepEqual(o.sizes, FULL_SIZES);
    assert.equal(o.quick, false);
    assert.equal(o.outDir, '/out');
    assert.equal(o.logLevel, 'info');
    assert.deepEqual(o.serverNodeArgs, []);
  });
  test('--quick selects the quick sizes', () => {
    assert.deepEqual(parseBenchArgs(['--quick'], '/out').sizes, QUICK_SIZES);
  });
  test('options are read', () => {
    const o = parseBenchArgs(['--only', 'get,create', '--out', '/x', '--cpu-prof', '--keep', '--log-level', 'warn'], '/out');
    assert.deepEqual(o.only, ['create', 'get']);
    assert.equal(o.outDir, '/x');
    assert.equal(o.cpuProf, true);
    assert.equal(o.keep, true);
    assert.equal(o.logLevel, 'warn');
  });
  test('--server-node-args is split into the flags handed to the servers', () => {
    assert.deepEqual(parseBenchArgs(['--server-node-args= --heap-growing-percent=50  --max-semi-space-size=32 '], '/out').serverNodeArgs, [
      '--heap-growing-percent=50',
      '--max-semi-space-size=32',
    ]);
  });
  test('unknown flags are refused', () => {
    assert.throws(() => parseBenchArgs(['--fast'], '/out'));
  });
  test('the full sizes are the ones the brief sets the targets for', () => {
    assert.equal(FULL_SIZES.concurrency, 16);
    assert.equal(FULL_SIZES.listObjects, 10_000);
    assert.equal(FULL_SIZES.watchers, 100);
    assert.equal(FULL_SIZES.rssObjects, 100_000);
  });
});

describe('parseOnly', () => {
  const cases: { reason: string; input: string; want: string[] }[] = [
    { reason: 'names come back in run order', input: 'rss,create', want: ['create', 'rss'] },
    { reason: 'duplicates collapse', input: 'get,get', want: ['get'] },
    { reason: 'blanks and spaces are ignored', input: ' list , ,watch', want: ['list', 'watch'] },
    { reason: 'plural and short aliases are accepted', input: 'creates,coldstart', want: ['cold-start', 'create'] },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(parseOnly(c.input), c.want));
  test('unknown names are refused with the list of known ones', () => {
    assert.throws(() => parseOnly('create,bogus'), /unknown benchmark "bogus", expected some of cold-start/);
    assert.throws(() => parseOnly(','), /needs at least one/);
  });
  test('--store etcd runs the benchmarks that measure the store, on etcd', () => {
    const o = parseBenchArgs(['--store', 'etcd', '--quick'], '/out');
    assert.equal(o.store, 'etcd');
    assert.deepEqual(o.only, ['create', 'get', 'list', 'watch', 'rss', 'watch-flood', 'claims', 'kubernetes']);
    assert.equal(parseBenchArgs([], '/out').store, 'sqlite');
    assert.throws(() => parseBenchArgs(['--store', 'etcd', '--only', 'cold-start,create'], '/out'), /cold-start measure no store/);
    assert.throws(() => parseBenchArgs(['--store', 'mysql'], '/out'), /--store: expected sqlite or etcd/);
  });
});
