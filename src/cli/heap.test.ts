import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { growthPercentAfterCollection, heapGrowthGiven, leanAfterCollection, SERVER_HEAP_POLICY, type HeapGrowthPolicy } from './heap.js';

const heapModule = fileURLToPath(new URL('./heap.js', import.meta.url));

/**
 * Runs `body` in a fresh node started with `args` (and --expose-gc), with `m` the heap module,
 * and returns what it printed as JSON.
 */
function runWithHeapModule(args: string[], body: string): unknown {
  const script = `import(${JSON.stringify(heapModule)}).then(async (m) => { ${body} });`;
  const out = execFileSync(process.execPath, ['--expose-gc', ...args, '-e', script], { encoding: 'utf8' });
  return JSON.parse(out);
}

const MiB = 1024 * 1024;
const small: HeapGrowthPolicy = { leanPercent: 50, leanAboveBytes: 48 * MiB, relaxBelowBytes: 32 * MiB };

describe('server heap growth', () => {
  test('a --heap-growing-percent given to node is recognised in its arguments', () => {
    assert.ok(heapGrowthGiven(['--heap-growing-percent=30']));
    assert.ok(heapGrowthGiven(['--enable-source-maps', '--heap_growing_percent', '30']));
    assert.ok(!heapGrowthGiven(['--max-old-space-size=512', '--enable-source-maps']));
    assert.ok(!heapGrowthGiven([]));
  });

  test('the heap turns lean only above the upper threshold and back only below the lower one', () => {
    const cases: { reason: string; live: number; leanNow: boolean; want: boolean }[] = [
      { reason: 'small and not lean stays', live: 10 * MiB, leanNow: false, want: false },
      { reason: 'between the thresholds, not lean stays not lean', live: 40 * MiB, leanNow: false, want: false },
      { reason: 'above the upper threshold turns lean', live: 49 * MiB, leanNow: false, want: true },
      { reason: 'between the thresholds, lean stays lean', live: 40 * MiB, leanNow: true, want: true },
      { reason: 'at the lower threshold lean stays lean', live: 32 * MiB, leanNow: true, want: true },
      { reason: 'below the lower threshold turns back', live: 31 * MiB, leanNow: true, want: false },
    ];
    for (const c of cases) assert.equal(leanAfterCollection(c.live, c.leanNow, small), c.want, c.reason);
  });

  test('while lean, the growth is the off-heap percentage when more survives outside the heap than in it', () => {
    const policy: HeapGrowthPolicy = { ...small, leanPercent: 75, offHeapLeanPercent: 50 };
    const cases: { reason: string; heap: number; external: number; leanNow: boolean; want: number }[] = [
      { reason: 'small: V8 own growth', heap: 10 * MiB, external: 10 * MiB, leanNow: false, want: 0 },
      { reason: 'large, mostly in the heap', heap: 60 * MiB, external: 5 * MiB, leanNow: false, want: 75 },
      { reason: 'large, mostly outside the heap', heap: 40 * MiB, external: 130 * MiB, leanNow: false, want: 50 },
      { reason: 'lean and still large, mostly outside', heap: 20 * MiB, external: 30 * MiB, leanNow: true, want: 50 },
      { reason: 'lean, fallen below the lower threshold', heap: 10 * MiB, external: 20 * MiB, leanNow: true, want: 0 },
    ];
    for (const c of cases) assert.equal(growthPercentAfterCollection(c.heap, c.external, c.leanNow, policy), c.want, c.reason);
    assert.equal(growthPercentAfterCollection(40 * MiB, 130 * MiB, false, small), small.leanPercent, 'without an off-heap percentage: the lean one');
  });

  test('not lean but past the lower threshold, the growth is bounded rather than V8 own', () => {
    const policy: HeapGrowthPolicy = { ...small, leanPercent: 75, boundedPercent: 100 };
    const cases: { reason: string; heap: number; external: number; leanNow: boolean; want: number }[] = [
      { reason: 'below the lower threshold: V8 own', heap: 31 * MiB, external: 0, leanNow: false, want: 0 },
      { reason: 'between the thresholds, not lean: bounded', heap: 40 * MiB, external: 0, leanNow: false, want: 100 },
      { reason: 'at the lower threshold, not lean: bounded', heap: 32 * MiB, external: 0, leanNow: false, want: 100 },
      { reason: 'external memory counts towards the threshold', heap: 20 * MiB, external: 20 * MiB, leanNow: false, want: 100 },
      { reason: 'between the thresholds, lean: stays lean', heap: 40 * MiB, external: 0, leanNow: true, want: 75 },
      { reason: 'above the upper threshold: lean', heap: 60 * MiB, external: 0, leanNow: false, want: 75 },
      { reason: 'lean, fallen below the lower threshold: V8 own', heap: 20 * MiB, external: 0, leanNow: true, want: 0 },
    ];
    for (const c of cases) assert.equal(growthPercentAfterCollection(c.heap, c.external, c.leanNow, policy), c.want, c.reason);
    assert.equal(growthPercentAfterCollection(40 * MiB, 0, false, small), 0, 'without a bounded percentage: V8 own');
  });

  test("the server's policy has a gap between its thresholds and a moderate factor", () => {
    assert.ok(SERVER_HEAP_POLICY.relaxBelowBytes < SERVER_HEAP_POLICY.leanAboveBytes);
    assert.ok(SERVER_HEAP_POLICY.leanPercent > 0 && SERVER_HEAP_POLICY.leanPercent < 100);
    assert.ok((SERVER_HEAP_POLICY.boundedPercent ?? 0) >= SERVER_HEAP_POLICY.leanPercent, 'bounded is between lean and V8 own');
    const offHeap = SERVER_HEAP_POLICY.offHeapLeanPercent ?? 0;
    assert.ok(offHeap > 0 && offHeap < SERVER_HEAP_POLICY.leanPercent, 'a heap whose memory is mostly outside it grows less');
  });

  test('a heap between the thresholds gets the bounded growth without turning lean', () => {
    const body = `
      const policy = ${JSON.stringify({ leanPercent: 50, leanAboveBytes: 96 * MiB, relaxBelowBytes: 32 * MiB, boundedPercent: 100 })};
      const changes = [];
      const g = m.governServerHeap([], policy, (lean, live, percent) => changes.push({ lean, percent }));
      const settle = () => new Promise((r) => setTimeout(r, 50));
      let keep = Array.from({ length: 60 }, (_, i) => new Array(100_000).fill(i)); // ~48 MiB of arrays
      global.gc(); await settle();
      const between = { lean: g.lean, switches: g.switches };
      keep = null; global.gc(); await settle();
      g.stop();
      process.stdout.write(JSON.stringify({ between, changes }));`;
    assert.deepEqual(runWithHeapModule([], body), {
      between: { lean: false, switches: 0 },
      changes: [
        { lean: false, percent: 100 },
        { lean: false, percent: 0 },
      ],
    });
  });

  test('a live heap past the threshold turns the growth lean after a full collection, and freeing it turns it back', () => {
    const body = `
      const policy = ${JSON.stringify(small)};
      const g = m.governServerHeap([], policy);
      const settle = () => new Promise((r) => setTimeout(r, 50));
      const seen = [g.lean];
      let keep = Array.from({ length: 80 }, (_, i) => new Array(100_000).fill(i)); // ~64 MiB of arrays
      global.gc(); await settle(); seen.push(g.lean);
      keep = null; global.gc(); await settle(); seen.push(g.lean);
      g.stop();
      process.stdout.write(JSON.stringify({ seen, switches: g.switches }));`;
    assert.deepEqual(runWithHeapModule([], body), { seen: [false, true, false], switches: 2 });
  });

  test('with its own --heap-growing-percent, node decides and nothing is switched', () => {
    const body = `process.stdout.write(JSON.stringify(m.governServerHeap(process.execArgv) === undefined));`;
    assert.equal(runWithHeapModule(['--heap-growing-percent=30'], body), true);
    assert.equal(
      runWithHeapModule([], `const g = m.governServerHeap(process.execArgv); g.stop(); process.stdout.write(JSON.stringify(g === undefined));`),
      false,
    );
  });
});
