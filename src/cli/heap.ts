/**
 * The server's V8 heap growth. Left alone, V8 lets the old generation grow to up to 4× what
 * survived the last full collection before collecting again; while the controllers' caches
 * fill (10,000 claims bound in a burst) that is 2.5–3× the live heap, and the server's RSS
 * follows the heap's size, not what is live. A fixed, moderate growing factor keeps the heap
 * near what is live at the cost of more frequent full collections (bench/README.md has the
 * figures). A `--heap-growing-percent` given to node itself (`node --heap-growing-percent=N
 * …/main.js server`; NODE_OPTIONS does not take it) wins.
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation grows by this percentage of what survived before the next full collection. */
export const SERVER_HEAP_GROWING_PERCENT = 50;

/** Whether node was started with its own --heap-growing-percent (`execArgv`: node's own arguments). */
export function heapGrowthGiven(execArgv: readonly string[]): boolean {
  return execArgv.some((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a));
}

/**
 * Sets the server's heap growing factor unless node was given one; returns the percentage in
 * effect, or undefined when node's own flag decides.
 */
export function tuneServerHeap(execArgv: readonly string[] = process.execArgv): number | undefined {
  if (heapGrowthGiven(execArgv)) return undefined;
  setFlagsFromString(`--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`);
  return SERVER_HEAP_GROWING_PERCENT;
}
