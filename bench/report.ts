/**
 * Turning measurements into the printed table and the JSON files under bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchSizes } from './options.js';
import type { BenchStore } from './server-process.js';
import { goalFor, meets } from './targets.js';

/** A Metric is one figure of the table. */
export interface Metric {
  /** Stable id, e.g. `create.rate`; goals are looked up by it. */
  id: string;
  label: string;
  /** null when the benchmark could not produce it. */
  value: number | null;
  unit: string;
}

/** A JudgedMetric is a Metric with its goal, the reference figure and the verdict. */
export interface JudgedMetric extends Metric {
  target: string | null;
  reference: string | null;
  /** PASS/FAIL when judged; `n/a` when the run's sizes differ from the goal's; null without a goal. */
  verdict: 'PASS' | 'FAIL' | 'n/a' | null;
}

/** judge attaches goals and verdicts to metrics for a run of the given sizes. */
export function judge(metrics: Metric[], sizes: BenchSizes, store: BenchStore = 'sqlite'): JudgedMetric[] {
  return metrics.map((m) => {
    const goal = goalFor(m.id, store);
    if (!goal) return { ...m, target: null, reference: null, verdict: null };
    const target = `${goal.op === '>=' ? '≥' : '≤'} ${formatNumber(goal.value)}${m.unit === '/s' ? '/s' : ` ${m.unit}`}`;
    let verdict: JudgedMetric['verdict'];
    if (!goal.appliesTo(sizes)) verdict = 'n/a';
    else if (m.value === null) verdict = 'FAIL';
    else verdict = meets(goal, m.value) ? 'PASS' : 'FAIL';
    return { ...m, target, reference: goal.reference, verdict };
  });
}

/** formatNumber prints a figure with thousands separators and sensible decimals. */
export function formatNumber(v: number): string {
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return v.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: digits });
}

/** formatValue prints a metric's value with its unit. */
export function formatValue(m: Metric): string {
  if (m.value === null) return 'error';
  return m.unit === '/s' ? `${formatNumber(m.value)}/s` : `${formatNumber(m.value)} ${m.unit}`;
}

/** formatTable renders judged metrics as a fixed-width text table. */
export function formatTable(rows: JudgedMetric[]): string {
  const header = ['benchmark', 'result', 'target', 'kube-apiserver+etcd', 'pass'];
  const body = rows.map((r) => [r.label, formatValue(r), r.target ?? '', r.reference ?? '', r.verdict ?? '']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => [...row[i]].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 1 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** resultFileNames returns the latest and dated file names for a run started at `startedAt`. */
export function resultFileNames(startedAt: Date, quick: boolean, store: BenchStore = 'sqlite'): { latest: string; dated: string } {
  const stamp = startedAt
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
  const suffix = `${store === 'etcd' ? '-etcd' : ''}${quick ? '-quick' : ''}`;
  return { latest: `latest${suffix}.json`, dated: `bench-${stamp}${suffix}.json` };
}

/** writeResults writes the document to the latest file and a dated copy; it returns both paths. */
export function writeResults(outDir: string, startedAt: Date, quick: boolean, doc: unknown, store: BenchStore = 'sqlite'): string[] {
  mkdirSync(outDir, { recursive: true });
  const names = resultFileNames(startedAt, quick, store);
  const text = JSON.stringify(doc, null, 2) + '\n';
  const paths = [join(outDir, names.latest), join(outDir, names.dated)];
  for (const p of paths) writeFileSync(p, text);
  return paths;
}
