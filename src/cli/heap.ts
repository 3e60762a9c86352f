/**
 * The server's V8 heap growth. Left alone, V8 lets the old generation grow to up to 4× what
 * survived the last full collection before collecting again; while the controllers' caches
 * fill (10,000 claims bound in a burst) that is 2.5–3× the live heap, and the server's RSS
 * follows the heap's size, not what is live. A moderate growing factor keeps the heap near
 * what is live, at the price of more frequent full collections: more CPU and longer tails.
 *
 * That price is worth paying only where the memory is: so the server keeps V8's own growth
 * while what survives a full collection is small, and switches to the moderate factor once it
 * passes `leanAboveBytes` (back below `relaxBelowBytes`, V8's own again; the gap keeps it from
 * flapping). What survives counts the memory outside the heap that V8 accounts for (ArrayBuffers:
 * the etcd watch cache holds its values there, ~135 MB at 100,000 objects): a server holding
 * that much is a large one even when its heap alone is small, and V8's own growth over a heap of
 * 50 MB live let it reach 160 MB. bench/README.md has the figures. A `--heap-growing-percent` given to node itself
 * (`node --heap-growing-percent=N …/main.js server`; NODE_OPTIONS does not take it) wins, and
 * then nothing is switched.
 */
import { setFlagsFromString, getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';

/** When the server's heap is lean (a moderate growing factor) and when it is V8's own. */
export interface HeapGrowthPolicy {
  /** The old generation grows by this percentage of what survived, while lean. */
  leanPercent: number;
  /** Lean once a full collection leaves more than this many bytes live. */
  leanAboveBytes: number;
  /** V8's own growth again once a full collection leaves fewer than this many bytes live. */
  relaxBelowBytes: number;
  /**
   * While lean and most of what survives is outside the heap (the etcd watch cache's values),
   * the old generation grows by this percentage instead of `leanPercent` (default: the same).
   */
  offHeapLeanPercent?: number;
  /**
   * While not lean but what survived is at least `relaxBelowBytes`, the growth is this
   * percentage instead of V8's own (default: V8's own). A decision takes effect one collection
   * late (V8 sets the next limit as it finishes a collection, before the governor hears of it),
   * so a heap on its way to lean must not get V8's own growth — up to 300% — on the way.
   */
  boundedPercent?: number;
}

const MiB = 1024 * 1024;

/**
 * The server's policy. With V8's own growth a full collection comes only when the heap is 2.5–3×
 * what was live after the last one, so the switch must come early: registering 10,000
 * resources leaves 60–100 MB live, the 10,000 claims bound to them then ~150 MB (lean: ~370 MB
 * RSS when they are bound; switched only at 128 MB, the heap had already grown to ~570 MB);
 * 20,000 ConfigMaps in the API benchmarks leave under 40 MB (V8's own growth: no extra
 * collections on the request path). A growth of 75% rather than 50%: at 50% full collections
 * came every few seconds at a steady 100 claims/s over 10,000 bound ones, each holding the loop
 * ~200 ms (its marking steps), and set the steady p99 (52–122 ms against 29–30 ms before the
 * policy); at 75%: 17–22 ms at 352–356 MB RSS (bench/README.md).
 *
 * Between the thresholds, while not lean, the growth is bounded at 100%: a claims burst's first
 * full collections leave ~50 MB and then ~90 MB live, and V8's own growth after the first (it
 * can reach 300%) once let the heap reach 382 MB before the second, and the server's RSS stayed
 * at 490 MB after the burst (1 run in 7 on 2026-11-29; the others 334–349 MB).
 */
export const SERVER_HEAP_POLICY: HeapGrowthPolicy = {
  leanPercent: 75,
  leanAboveBytes: 64 * MiB,
  relaxBelowBytes: 48 * MiB,
  offHeapLeanPercent: 25,
  boundedPercent: 100,
};

/** The old generation grows by this percentage of what survived, while the heap is lean. */
export const SERVER_HEAP_GROWING_PERCENT = SERVER_HEAP_POLICY.leanPercent;

/** Whether node was started with its own --heap-growing-percent (`execArgv`: node's own arguments). */
export function heapGrowthGiven(execArgv: readonly string[]): boolean {
  return execArgv.some((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a));
}

/**
 * leanAfterCollection says whether the heap should be lean after a full collection that left
 * `liveBytes`, given whether it is lean now: it changes only past the policy's thresholds.
 */
export function leanAfterCollection(liveBytes: number, leanNow: boolean, policy: HeapGrowthPolicy): boolean {
  if (leanNow) return liveBytes >= policy.relaxBelowBytes;
  return liveBytes > policy.leanAboveBytes;
}

/**
 * growthPercentAfterCollection is the old generation's growth after a full collection that left
 * `heapBytes` in the heap and `externalBytes` outside it: unless lean, 0 (V8's own) — or
 * `boundedPercent` when what survived is at least `relaxBelowBytes`; while lean,
 * `offHeapLeanPercent` when more survives outside the heap than in it, else `leanPercent`.
 * A server on etcd holding 100,000 objects keeps ~135 MB of values outside the heap and ~60 MB
 * in it: its heap's growth is what RSS carries beyond them. Grown by 50% instead of 75% the
 * server held 323 MB instead of 339 MB; by 25% instead of 50%, 319 MB instead of 328 MB (the
 * means of six runs each, bench --store etcd --only rss; single runs move by ±8 MB). A SQLite
 * server never takes this branch: what survives there is in its heap (its outside-heap memory
 * is sockets' and requests' buffers). The controllers' heavy heaps (the claims burst) keep their
 * objects in the heap: 75% for them, as above.
 */
export function growthPercentAfterCollection(heapBytes: number, externalBytes: number, leanNow: boolean, policy: HeapGrowthPolicy): number {
  const live = heapBytes + externalBytes;
  if (!leanAfterCollection(live, leanNow, policy)) return live >= policy.relaxBelowBytes ? (policy.boundedPercent ?? 0) : 0;
  return externalBytes > heapBytes ? (policy.offHeapLeanPercent ?? policy.leanPercent) : policy.leanPercent;
}

/**
 * What survived a full collection: every heap space's use but the young generation's, and the
 * memory outside the heap that V8 accounts for (ArrayBuffers' bytes).
 */
export function survivingBytes(): number {
  return oldGenerationLiveBytes() + getHeapStatistics().external_memory;
}

/** What survived in the old generation: every space's use but the young generation's. */
export function oldGenerationLiveBytes(): number {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (!space.space_name.startsWith('new_')) bytes += space.space_used_size;
  }
  return bytes;
}

/** A HeapGrowthGovernor sets the heap's growth (V8's own, bounded or lean) after full collections. */
export interface HeapGrowthGovernor {
  /** Whether the moderate factor is in effect now. */
  readonly lean: boolean;
  /** How many times it switched between lean and not lean (either way). */
  readonly switches: number;
  /** Stops observing collections and leaves V8's own growth in effect. */
  stop(): void;
}

/**
 * governServerHeap starts switching the heap's growth by `policy` unless node was given its own
 * --heap-growing-percent (then it returns undefined and changes nothing). It observes full
 * (mark-compact) collections only (what survived them: `survivingBytes`); `onSwitch` hears each
 * change of the growth (lean or not, what survived, the percentage; 0 is V8's own).
 */
export function governServerHeap(
  execArgv: readonly string[] = process.execArgv,
  policy: HeapGrowthPolicy = SERVER_HEAP_POLICY,
  onSwitch?: (lean: boolean, liveBytes: number, growthPercent: number) => void,
): HeapGrowthGovernor | undefined {
  if (heapGrowthGiven(execArgv)) return undefined;
  let percent = 0;
  let lean = false;
  let switches = 0;
  const observer = new PerformanceObserver((list) => {
    const majors = list
      .getEntries()
      .filter((e) => (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR);
    if (majors.length === 0) return;
    const heap = oldGenerationLiveBytes();
    const external = getHeapStatistics().external_memory;
    const next = growthPercentAfterCollection(heap, external, lean, policy);
    const nextLean = leanAfterCollection(heap + external, lean, policy);
    if (next === percent && nextLean === lean) return;
    if (nextLean !== lean) switches++;
    lean = nextLean;
    if (next === percent) return;
    percent = next;
    // 0 is V8's own growth (its default); setting flags after start is what node's v8 module offers.
    setFlagsFromString(`--heap-growing-percent=${percent}`);
    onSwitch?.(lean, heap + external, percent);
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    get lean() {
      return lean;
    },
    get switches() {
      return switches;
    },
    stop() {
      observer.disconnect();
      if (percent !== 0) setFlagsFromString('--heap-growing-percent=0');
      percent = 0;
      lean = false;
    },
  };
}
