/**
 * Printing a trace: a table whose NAME column draws the tree (`├─`, `└─`), with READY, SYNCED,
 * STATUS and AGE; `wide` keeps whole messages and adds the namespace, the default cuts them to
 * fit; `json` prints the tree itself. Ages are kubectl's (`45s`, `5m`, `3h`, `2d`). With
 * `color` (a terminal, see terminal.ts) READY and SYNCED are coloured; the columns line up the
 * same, as the widths are those of the plain text.
 */
import type { TraceNode } from '../../trace/trace-tree.js';
import { colorStatus } from './terminal.js';

export type TraceOutput = 'table' | 'wide' | 'json';

const STATUS_WIDTH = 64;

/** kubectl's short age of a timestamp. */
export function age(createdAt: string | undefined, now: number): string {
  if (!createdAt) return '-';
  const s = Math.max(0, Math.floor((now - Date.parse(createdAt)) / 1000));
  if (!Number.isFinite(s)) return '-';
  if (s < 120) return `${s}s`;
  if (s < 3600 * 2) return `${Math.floor(s / 60)}m`;
  if (s < 86400 * 2) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

function cut(text: string, width: number): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length <= width ? oneLine : `${oneLine.slice(0, width - 1)}…`;
}

export interface RenderOptions {
  /** Colour the READY and SYNCED cells (ANSI); default false. */
  color?: boolean;
}

export function renderTrace(root: TraceNode, output: TraceOutput, now = Date.now(), options: RenderOptions = {}): string {
  if (output === 'json') return `${JSON.stringify(root, null, 2)}\n`;
  const wide = output === 'wide';
  const rows: string[][] = [];
  const walk = (node: TraceNode, prefix: string, childPrefix: string) => {
    rows.push([
      `${prefix}${node.name}`,
      ...(wide ? [node.namespace ?? ''] : []),
      node.ready,
      node.synced,
      wide ? node.status.replace(/\s+/g, ' ') : cut(node.status, STATUS_WIDTH),
      age(node.createdAt, now),
    ]);
    node.children.forEach((child, i) => {
      const last = i === node.children.length - 1;
      walk(child, `${childPrefix}${last ? '└─ ' : '├─ '}`, `${childPrefix}${last ? '   ' : '│  '}`);
    });
  };
  walk(root, '', '');
  const header = ['NAME', ...(wide ? ['NAMESPACE'] : []), 'READY', 'SYNCED', 'STATUS', 'AGE'];
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((r) => [...r[c]].length)));
  const pad = (cell: string, c: number) => cell + ' '.repeat(widths[c] - [...cell].length);
  // The READY and SYNCED columns, coloured after padding (escape codes take no width).
  const statusColumns = new Set([header.indexOf('READY'), header.indexOf('SYNCED')]);
  const paint = (text: string, c: number, row: number) => (options.color && row > 0 && statusColumns.has(c) ? paintStatus(text) : text);
  return `${all
    .map((r, row) =>
      r
        .map((cell, c) => paint(c === r.length - 1 ? cell : pad(cell, c), c, row))
        .join('   ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

/** Colours the status word of a padded cell, leaving its padding as it is. */
function paintStatus(padded: string): string {
  const word = padded.trimEnd();
  return colorStatus(word) + padded.slice(word.length);
}
