/**
 * The child process of the crash test: it opens the store at argv[2] and has argv[4]
 * concurrent writers run, for keys /crash/<round>/<writer>/<n>: create, update, and for
 * every fifth key delete. Each acknowledged write is printed as
 * `ack <op> <key> <revision>` only after its promise resolved. It runs until killed.
 *
 *   node dist/src/store/sqlite/crash-writer.js <path> <round> <writers>
 */
import { openSqliteStore } from './sqlite-store.js';

const [path, round, writersArg] = process.argv.slice(2);
if (!path || !round || !writersArg) {
  process.stderr.write('usage: crash-writer <path> <round> <writers>\n');
  process.exit(2);
}
const store = openSqliteStore({ path, compactionIntervalMs: 0 });

/** ack prints synchronously (stdout is a pipe, which Node writes synchronously on Linux). */
function ack(op: string, key: string, revision: number): void {
  process.stdout.write(`ack ${op} ${key} ${revision}\n`);
}

async function writer(w: number): Promise<void> {
  for (let n = 0; n < 1_000_000; n++) {
    const key = `/crash/${round}/${w}/${n}`;
    const value = (step: string) => (rev: number) => JSON.stringify({ key, step, rev });
    const created = await store.create(key, value('create'));
    ack('create', key, created.modRevision);
    const updated = await store.update(key, created.modRevision, value('update'));
    ack('update', key, updated.modRevision);
    if (n % 5 === 0) {
      const deleted = await store.delete(key, updated.modRevision);
      ack('delete', key, deleted.modRevision);
    }
  }
}

process.stdout.write('ready\n');
await Promise.all(Array.from({ length: Number(writersArg) }, (_, w) => writer(w)));
