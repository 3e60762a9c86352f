#!/usr/bin/env node
/**
 * Summarizes a V8 CPU profile (`node --cpu-prof` writes `*.cpuprofile`): where the time
 * went, by function (self and inclusive time) and by source file, as percentages of the
 * sampled time. Usage:
 *
 *   node dist/bench/profile-summary.js <file.cpuprofile> [--top 30] [--json]
 *       [--results bench/results/latest.json --phase create]   # only that benchmark's measured interval
 *       [--from <µs> --to <µs>]                                # or any interval of the monotonic clock
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

/** The parts of a .cpuprofile this reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A Row is time attributed to one function or file. */
export interface Row {
  name: string;
  ms: number;
  percent: number;
}

/** A ProfileSummary lists the heaviest functions and files. */
export interface ProfileSummary {
  totalMs: number;
  idlePercent: number;
  selfByFunction: Row[];
  inclusiveByFunction: Row[];
  selfByFile: Row[];
}

/** frameName names a call frame `fn (file:line)`, with paths shortened to the part after node_modules/ or dist/. */
export function frameName(cf: { functionName: string; url: string; lineNumber: number }): string {
  const fn = cf.functionName || '(anonymous)';
  if (!cf.url) return fn;
  return `${fn} (${shortFile(cf.url)}:${cf.lineNumber + 1})`;
}

function shortFile(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm !== -1) return path.slice(nm + 'node_modules/'.length);
  const dist = path.indexOf('/dist/');
  if (dist !== -1) return path.slice(dist + '/dist/'.length);
  return path;
}

/** A Window limits a summary to samples taken within [fromUs, toUs] of the monotonic clock. */
export interface Window {
  fromUs: number;
  toUs: number;
}

/**
 * summarizeProfile attributes each sample's time to its function (self) and to every
 * distinct function on its stack (inclusive), optionally only for samples inside `window`.
 */
export function summarizeProfile(p: CpuProfile, top = 30, window?: Window): ProfileSummary {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(p.samples[i]);
    if (!node) continue;
    total += dt;
    const name = frameName(node.callFrame);
    if (node.callFrame.functionName === '(idle)') idle += dt;
    self.set(name, (self.get(name) ?? 0) + dt);
    const file = node.callFrame.url ? shortFile(node.callFrame.url) : `(${node.callFrame.functionName || 'native'})`;
    files.set(file, (files.get(file) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id)!;
      const fname = frameName(n.callFrame);
      if (seen.has(fname)) continue;
      seen.add(fname);
      inclusive.set(fname, (inclusive.get(fname) ?? 0) + dt);
    }
  }
  const rows = (m: Map<string, number>): Row[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms: Math.round(ms), percent: total ? Math.round((ms / total) * 1000) / 10 : 0 }));
  return {
    totalMs: Math.round(total),
    idlePercent: total ? Math.round((idle / total) * 1000) / 10 : 0,
    selfByFunction: rows(self),
    inclusiveByFunction: rows(inclusive).filter((r) => !r.name.startsWith('(root)')),
    selfByFile: rows(files),
  };
}

/** phaseWindow reads a benchmark's measured interval out of a results document (results.<phase>.cpu.window). */
export function phaseWindow(doc: unknown, phase: string): Window {
  const w = (doc as { results?: Record<string, { cpu?: { window?: { startUs?: number; endUs?: number } } }> }).results?.[phase]?.cpu?.window;
  if (typeof w?.startUs !== 'number' || typeof w.endUs !== 'number') {
    throw new Error(`the results have no measured interval for ${JSON.stringify(phase)}: expected results.${phase}.cpu.window {startUs, endUs}`);
  }
  return { fromUs: w.startUs, toUs: w.endUs };
}

function printRows(title: string, rows: Row[]): void {
  process.stdout.write(`\n${title}\n`);
  for (const r of rows) process.stdout.write(`${r.percent.toFixed(1).padStart(6)}%  ${String(r.ms).padStart(7)} ms  ${r.name}\n`);
}

const USAGE =
  'usage: node dist/bench/profile-summary.js <file.cpuprofile> [--top 30] [--json] [--results <json> --phase <benchmark>] [--from <µs> --to <µs>]\n';

function cli(): void {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        top: { type: 'string', default: '30' },
        json: { type: 'boolean', default: false },
        results: { type: 'string' },
        phase: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (positionals.length !== 1) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as CpuProfile;
  let window: Window | undefined;
  if (values.results !== undefined || values.phase !== undefined) {
    if (values.results === undefined || values.phase === undefined) throw new Error('--results and --phase go together');
    window = phaseWindow(JSON.parse(readFileSync(values.results, 'utf8')), values.phase);
  } else if (values.from !== undefined || values.to !== undefined) {
    window = { fromUs: Number(values.from ?? 0), toUs: Number(values.to ?? Infinity) };
  }
  const s = summarizeProfile(profile, Number(values.top), window);
  if (values.json) {
    process.stdout.write(JSON.stringify(s, null, 2) + '\n');
    return;
  }
  process.stdout.write(`sampled ${s.totalMs} ms${window ? ` in [${window.fromUs}, ${window.toUs}] µs` : ''}, ${s.idlePercent}% idle\n`);
  printRows('self time by function', s.selfByFunction);
  printRows('inclusive time by function', s.inclusiveByFunction);
  printRows('self time by file', s.selfByFile);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) cli();
