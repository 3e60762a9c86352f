/**
 * Test support: a small reader of Prometheus' text exposition format (what `/metrics`
 * serves), enough to find series by name and labels. prom-client has no parser.
 */

/** One sample line: `name{label="value",...} value`. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** An Exposition is the parsed text: samples, and each metric family's TYPE and HELP. */
export interface Exposition {
  samples: PromSample[];
  types: Map<string, string>;
  help: Map<string, string>;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;

/** parseExposition reads the text exposition format; it throws on a line it cannot read. */
export function parseExposition(text: string): Exposition {
  const samples: PromSample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      types.set(name, type);
      continue;
    }
    if (line.startsWith('# HELP ')) {
      const rest = line.slice(7);
      const space = rest.indexOf(' ');
      help.set(rest.slice(0, space), rest.slice(space + 1));
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not an exposition line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    if (m[2]) {
      LABEL.lastIndex = 0;
      let consumed = 0;
      for (let l = LABEL.exec(m[2]); l; l = LABEL.exec(m[2])) {
        labels[l[1]] = l[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
        consumed = LABEL.lastIndex;
      }
      if (consumed !== m[2].length) throw new Error(`cannot read the labels of ${JSON.stringify(line)}`);
    }
    const raw = m[3];
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'Nan' || raw === 'NaN' ? NaN : Number(raw);
    if (Number.isNaN(value) && raw !== 'Nan' && raw !== 'NaN') throw new Error(`not a sample value: ${JSON.stringify(line)}`);
    samples.push({ name: m[1], labels, value });
  }
  return { samples, types, help };
}

/** find returns the samples of `name` whose labels include `labels`. */
export function find(e: Exposition, name: string, labels: Record<string, string> = {}): PromSample[] {
  return e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** sum adds the values of the samples `find` returns. */
export function sum(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  return find(e, name, labels).reduce((n, s) => n + s.value, 0);
}
