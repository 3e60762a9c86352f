import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from './sqlite-store.js';

const writerScript = fileURLToPath(new URL('./crash-writer.js', import.meta.url));
const writers = 8;

interface Ack {
  op: 'create' | 'update' | 'delete';
  key: string;
  revision: number;
}

/**
 * runUntilKilled starts the crash writer, SIGKILLs it once it has acknowledged `killAfter`
 * writes, and returns every acknowledgement it printed.
 */
function runUntilKilled(path: string, round: string, killAfter: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writerScript, path, round, String(writers)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acks: Ack[] = [];
    let buffered = '';
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const [word, op, key, revision] = line.split(' ');
        if (word !== 'ack') continue;
        acks.push({ op: op as Ack['op'], key: key ?? '', revision: Number(revision) });
      }
      if (!killed && acks.length >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`crash writer exited with ${code ?? signal}: ${stderr}`));
      else resolve(acks);
    });
  });
}

/** check asserts that the store holds every acknowledged write of `round` and nothing unattempted. */
async function check(path: string, round: string, acks: Ack[]): Promise<void> {
  const store = openSqliteStore({ path, compactionIntervalMs: 0 });
  try {
    const last = new Map<string, Ack>();
    const highestAcked = new Map<number, number>(); // writer -> highest n with an ack
    for (const a of acks) {
      last.set(a.key, a);
      const [w, n] = a.key.split('/').slice(3).map(Number) as [number, number];
      highestAcked.set(w, Math.max(highestAcked.get(w) ?? -1, n));
    }
    const maxRevision = Math.max(...acks.map((a) => a.revision));
    assert.ok(store.currentRevision() >= maxRevision, `revision ${store.currentRevision()} < acknowledged ${maxRevision}`);

    const { items } = await store.list(`/crash/${round}/`);
    const present = new Map(items.map((kv) => [kv.key, kv]));
    // Every acknowledged write is there.
    for (const [key, a] of last) {
      const kv = present.get(key);
      const n = Number(key.split('/')[4]);
      if (a.op === 'delete') {
        assert.equal(kv, undefined, `${key} was deleted at ${a.revision}`);
      } else if (a.op === 'update') {
        // A delete may have been in flight for every fifth key.
        if (kv === undefined && n % 5 === 0) continue;
        assert.ok(kv, `${key} was updated at ${a.revision} but is missing`);
        assert.equal(kv.modRevision, a.revision, `${key} modRevision`);
        assert.equal(JSON.parse(kv.value).step, 'update');
      } else {
        assert.ok(kv, `${key} was created at ${a.revision} but is missing`);
        assert.ok(kv.modRevision >= a.revision);
      }
    }
    // Nothing exists that was never attempted, and every value is intact.
    for (const kv of items) {
      const [w, n] = kv.key.split('/').slice(3).map(Number) as [number, number];
      assert.ok(w >= 0 && w < writers, `unexpected writer in ${kv.key}`);
      assert.ok(n <= (highestAcked.get(w) ?? -1) + 1, `${kv.key} is beyond anything writer ${w} attempted`);
      const value = JSON.parse(kv.value) as { key: string; rev: number };
      assert.equal(value.key, kv.key);
      assert.equal(value.rev, kv.modRevision, `${kv.key}: the stored revision matches the embedded one`);
    }
  } finally {
    await store.close();
  }
}

describe('crash safety', () => {
  test('after SIGKILL mid-burst every acknowledged write survives and nothing else appears', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-store-crash-'));
    const path = join(dir, 'store.db');
    try {
      const rounds = [
        { round: 'r1', killAfter: 300 + Math.floor(Math.random() * 1500) },
        { round: 'r2', killAfter: 300 + Math.floor(Math.random() * 1500) },
      ];
      const acked = new Map<string, Ack[]>();
      for (const { round, killAfter } of rounds) {
        const acks = await runUntilKilled(path, round, killAfter);
        assert.ok(acks.length >= killAfter, `round ${round}: ${acks.length} acknowledgements`);
        acked.set(round, acks);
        // Every round so far, including the ones before the last crash.
        for (const [r, a] of acked) await check(path, r, a);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
