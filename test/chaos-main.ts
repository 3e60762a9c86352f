/**
 * `npm run chaos [-- --kills N] [--seed S] [--windows a,b]`: the long reliability campaign (see
 * test/support/chaos.ts). Prints one line per kill, a summary table by window, and writes
 * the JSON to bench/results/chaos-<time>.json. Exits 1 when any invariant failed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crashWindows, runChaos, summarize, type KillWindow } from './support/chaos.js';
import { repoRoot } from './support/server.js';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`--${name} wants a whole number, got "${process.argv[i + 1] ?? ''}"\n`);
    process.exit(2);
  }
  return value;
}

const kills = flag('kills', 100);
const seed = process.argv.includes('--seed') ? flag('seed', 0) : undefined;
const windowsAt = process.argv.indexOf('--windows');
const known: readonly string[] = ['random', ...crashWindows];
const windows = windowsAt < 0 ? undefined : (process.argv[windowsAt + 1] ?? '').split(',').filter((w) => w !== '');
const unknown = windows?.filter((w) => !known.includes(w)) ?? [];
if (windows && (windows.length === 0 || unknown.length > 0)) {
  process.stderr.write(`--windows wants a comma-separated list of ${known.join(', ')}; got "${process.argv[windowsAt + 1] ?? ''}"\n`);
  process.exit(2);
}
const dir = join(repoRoot, 'bench', 'results');
mkdirSync(dir, { recursive: true });
const file = join(
  dir,
  `chaos-${new Date()
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z')}.json`,
);
const started = Date.now();
const result = await runChaos({
  kills,
  seed,
  ...(windows ? { windows: windows as KillWindow[] } : {}),
  log: (line) => process.stdout.write(`${line}\n`),
  // Saved as it goes, so a run cut short still has its figures.
  onKill: (done, usedSeed) => {
    const partial = { kills: [...done], finalFailures: [], seed: usedSeed, durationMs: Date.now() - started, complete: false };
    writeFileSync(file, `${JSON.stringify({ ...partial, summary: summarize(partial) }, null, 2)}\n`);
  },
});
const rows = summarize(result);
const failedKills = result.kills.filter((k) => k.failures.length > 0).length;
const width = Math.max(...rows.map((r) => r.window.length), 'window'.length);
process.stdout.write(`\n${'window'.padEnd(width)}  kills  failures\n`);
for (const row of rows) process.stdout.write(`${row.window.padEnd(width)}  ${String(row.kills).padStart(5)}  ${String(row.failures).padStart(8)}\n`);
process.stdout.write(`${'total'.padEnd(width)}  ${String(result.kills.length).padStart(5)}  ${String(failedKills).padStart(8)}\n`);
process.stdout.write(`final delete: ${result.finalFailures.length === 0 ? 'clean' : result.finalFailures.join('; ')}\n`);
writeFileSync(file, `${JSON.stringify({ ...result, complete: true, summary: rows }, null, 2)}\n`);
process.stdout.write(`seed ${result.seed}, ${Math.round(result.durationMs / 1000)} s; wrote ${file}\n`);
process.exit(failedKills === 0 && result.finalFailures.length === 0 ? 0 : 1);
