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

  test("the server's policy has a gap between its thresholds and a moderate factor", () => {
    assert.ok(SERVER_HEAP_POLICY.relaxBelowBytes < SERVER_HEAP_POLICY.leanAboveBytes);
    assert.ok(SERVER_HEAP_POLICY.leanPercent > 0 && SERVER_HEAP_POLICY.leanPercent < 100);
    const offHeap = SERVER_HEAP_POLICY.offHeapLeanPercent ?? 0;
    assert.ok(offHeap > 0 && offHeap < SERVER_HEAP_POLICY.leanPercent, 'a heap whose memory is mostly outside it grows less');
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
