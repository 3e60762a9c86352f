/**
 * The JSONPath subset readiness and connection details use, as kubectl writes it:
 * `.status.phase`, `{.status.phase}`, `$.metadata.name`, `.data['tls.crt']`, `.items[0]`,
 * `.items[*].name` and filters `[?(@.type=="Ready")]` (== or !=, a string or number literal,
 * the left side a path from `@`). A path that does not parse is refused with the position.
 */

/** A JsonPathError says where a JSONPath stops making sense. */
export class JsonPathError extends Error {
  constructor(path: string, at: number, what: string) {
    super(
      `JSONPath ${JSON.stringify(path)} does not parse at character ${at + 1}: ${what} (want e.g. .status.phase or .status.conditions[?(@.type=="Ready")].status)`,
    );
    this.name = 'JsonPathError';
  }
}

type Segment =
  | { type: 'field'; name: string }
  | { type: 'index'; index: number }
  | { type: 'all' }
  | { type: 'filter'; path: Segment[]; op: '==' | '!='; value: string | number };

/** A JsonPath is a parsed path; `find` returns every value it selects in an object. */
export interface JsonPath {
  readonly text: string;
  find(root: unknown): unknown[];
}

class Parser {
  i = 0;
  constructor(
    readonly text: string,
    readonly end: number,
  ) {}

  fail(what: string): never {
    throw new JsonPathError(this.text, this.i, what);
  }

  peek(): string {
    return this.i < this.end ? this.text[this.i] : '';
  }

  name(): string {
    const m = /^[A-Za-z0-9_-]+/.exec(this.text.slice(this.i, this.end));
    if (!m) this.fail('expected a field name');
    this.i += m[0].length;
    return m[0];
  }

  quoted(): string {
    const quote = this.peek();
    const close = this.text.indexOf(quote, this.i + 1);
    if (close < 0 || close >= this.end) this.fail('unterminated quoted name');
    const value = this.text.slice(this.i + 1, close);
    this.i = close + 1;
    return value;
  }

  expect(s: string): void {
    if (this.text.slice(this.i, this.i + s.length) !== s) this.fail(`expected ${JSON.stringify(s)}`);
    this.i += s.length;
  }

  segments(stopAt: (c: string) => boolean): Segment[] {
    const out: Segment[] = [];
    while (this.i < this.end && !stopAt(this.peek())) {
      const c = this.peek();
      if (c === '.') {
        this.i++;
        if (this.peek() === '*') {
          this.i++;
          out.push({ type: 'all' });
        } else out.push({ type: 'field', name: this.name() });
      } else if (c === '[') {
        this.i++;
        out.push(this.bracket());
      } else this.fail(`unexpected ${JSON.stringify(c)}`);
    }
    return out;
  }

  bracket(): Segment {
    const c = this.peek();
    let seg: Segment;
    if (c === "'" || c === '"') seg = { type: 'field', name: this.quoted() };
    else if (c === '*') {
      this.i++;
      seg = { type: 'all' };
    } else if (c === '?') {
      this.i++;
      this.expect('(@');
      const path = this.segments((ch) => ch === '=' || ch === '!' || ch === ')');
      if (path.length === 0) this.fail('a filter compares a field of @');
      let op: '==' | '!=';
      if (this.text.startsWith('==', this.i)) op = '==';
      else if (this.text.startsWith('!=', this.i)) op = '!=';
      else this.fail('expected == or !=');
      this.i += 2;
      const q = this.peek();
      let value: string | number;
      if (q === "'" || q === '"') value = this.quoted();
      else {
        const m = /^-?[0-9]+(\.[0-9]+)?/.exec(this.text.slice(this.i, this.end));
        if (!m) this.fail('expected a quoted string or a number');
        this.i += m[0].length;
        value = Number(m[0]);
      }
      this.expect(')');
      seg = { type: 'filter', path, op, value };
    } else {
      const m = /^[0-9]+/.exec(this.text.slice(this.i, this.end));
      if (!m) this.fail('expected an index, * , a quoted name or a filter');
      this.i += m[0].length;
      seg = { type: 'index', index: Number(m[0]) };
    }
    this.expect(']');
    return seg;
  }
}

function step(values: unknown[], seg: Segment): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    if (seg.type === 'field') {
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && seg.name in v) out.push((v as Record<string, unknown>)[seg.name]);
    } else if (seg.type === 'index') {
      if (Array.isArray(v) && seg.index < v.length) out.push(v[seg.index]);
    } else if (seg.type === 'all') {
      if (Array.isArray(v)) out.push(...(v as unknown[]));
      else if (v !== null && typeof v === 'object') out.push(...Object.values(v as Record<string, unknown>));
    } else {
      const items: unknown[] = Array.isArray(v) ? v : [];
      for (const item of items) {
        const found = walk([item], seg.path);
        const match = found.some((f) => f === seg.value || (typeof f === 'number' && String(f) === String(seg.value)));
        if (seg.op === '==' ? match : !match) out.push(item);
      }
    }
  }
  return out;
}

function walk(values: unknown[], path: Segment[]): unknown[] {
  return path.reduce(step, values);
}

/** parseJsonPath parses a JSONPath of the subset above; it throws a JsonPathError when it does not parse. */
export function parseJsonPath(text: string): JsonPath {
  const trimmed = text.trim();
  if (trimmed === '') throw new JsonPathError(text, 0, 'it is empty');
  let start = text.indexOf(trimmed);
  let end = start + trimmed.length;
  if (text[start] === '{') {
    if (text[end - 1] !== '}') throw new JsonPathError(text, end - 1, 'a path opened with { closes with }');
    start++;
    end--;
  }
  const p = new Parser(text, end);
  p.i = start;
  if (p.peek() === '$') p.i++;
  if (p.i < end && p.peek() !== '.' && p.peek() !== '[') p.fail('a path starts with . or [');
  const segments = p.segments(() => false);
  return { text, find: (root) => walk([root], segments) };
}
