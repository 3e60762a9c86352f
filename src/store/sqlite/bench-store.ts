/**
 * A micro-benchmark of durable creates through the SQLite store: W concurrent writers each
 * create keys in a loop (awaiting every create) until N creates are done. It prints
 * creates/s and the mean batch size. Not a test; run it after building:
 *
 *   node dist/src/store/sqlite/bench-store.js [--writers 16] [--creates 20000] [--dir /tmp]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteStore } from './sqlite-store.js';

const { values } = parseArgs({
  options: {
    writers: { type: 'string', default: '16' },
    creates: { type: 'string', default: '20000' },
    dir: { type: 'string', default: tmpdir() },
    'value-bytes': { type: 'string', default: '800' },
  },
});
const writers = Number(values.writers);
const total = Number(values.creates);
const padding = 'x'.repeat(Number(values['value-bytes']));

const dir = mkdtempSync(join(values.dir, 'conductor-store-bench-'));
const store = openSqliteStore({ path: join(dir, 'store.db'), compactionIntervalMs: 0 });
let next = 0;

async function writer(id: number): Promise<void> {
  for (;;) {
    const i = next++;
    if (i >= total) return;
    const name = `obj-${i}`;
    await store.create(`/registry/configmaps/bench/${name}`, (rev) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'bench', resourceVersion: String(rev), labels: { writer: String(id) } },
        data: { padding },
      }),
    );
  }
}

const started = process.hrtime.bigint();
await Promise.all(Array.from({ length: writers }, (_, id) => writer(id)));
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const stats = store.stats();
await store.close();
rmSync(dir, { recursive: true, force: true });

const rows = [
  ['writers', String(writers)],
  ['creates', String(total)],
  ['seconds', seconds.toFixed(2)],
  ['durable creates/s', Math.round(total / seconds).toString()],
  ['commits', String(stats.batches)],
  ['mean batch', (total / stats.batches).toFixed(1)],
];
for (const [name, value] of rows) process.stdout.write(`${name.padEnd(20)} ${value}\n`);
