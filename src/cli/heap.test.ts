import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { heapGrowthGiven, SERVER_HEAP_GROWING_PERCENT } from './heap.js';

const heapModule = fileURLToPath(new URL('./heap.js', import.meta.url));

/** Runs tuneServerHeap in a fresh node started with `args`; its result (null: node's own flag decides). */
function tuneIn(args: string[]): number | null {
  const script = `import(${JSON.stringify(heapModule)}).then((m) => process.stdout.write(JSON.stringify(m.tuneServerHeap() ?? null)));`;
  const out = execFileSync(process.execPath, [...args, '-e', script], { encoding: 'utf8' });
  return JSON.parse(out) as number | null;
}

describe('server heap growth', () => {
  test('a --heap-growing-percent given to node is recognised in its arguments', () => {
    assert.ok(heapGrowthGiven(['--heap-growing-percent=30']));
    assert.ok(heapGrowthGiven(['--enable-source-maps', '--heap_growing_percent', '30']));
    assert.ok(!heapGrowthGiven(['--max-old-space-size=512', '--enable-source-maps']));
    assert.ok(!heapGrowthGiven([]));
  });

  test('the server sets its own growing factor unless node was given one', () => {
    assert.equal(tuneIn([]), SERVER_HEAP_GROWING_PERCENT);
    assert.equal(tuneIn(['--heap-growing-percent=30']), null);
  });
});
