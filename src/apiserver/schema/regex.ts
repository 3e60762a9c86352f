/**
 * Schema patterns are Go (RE2) regular expressions. compilePattern translates the RE2
 * spellings JavaScript lacks (leading `(?i)` flags, `\A`, `\z`, `(?P<name>`, POSIX classes,
 * `\pL`) and compiles the result, preferring Unicode mode and falling back to legacy mode
 * for patterns with identity escapes such as `\_` that Unicode mode rejects.
 */

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Translates an RE2 pattern into JavaScript source and flags. */
export function translatePattern(pattern: string): { source: string; flags: string } {
  let source = pattern;
  let flags = '';
  const lead = /^\(\?([imsU]+)\)/.exec(source);
  if (lead) {
    source = source.slice(lead[0].length);
    for (const f of lead[1]) if ((f === 'i' || f === 'm' || f === 's') && !flags.includes(f)) flags += f;
  }
  source = source
    .replace(/\(\?P</g, '(?<')
    .replace(/\[:(\^?)([a-z]+):\]/g, (m, neg: string, name: string) => (POSIX[name] && !neg ? POSIX[name] : m))
    .replace(/(^|[^\\])((?:\\\\)*)\\A/g, '$1$2^')
    .replace(/(^|[^\\])((?:\\\\)*)\\z/g, '$1$2$')
    .replace(/(^|[^\\])((?:\\\\)*)\\([pP])([A-Z])/g, '$1$2\\$3{$4}');
  return { source, flags };
}

const cache = new Map<string, RegExp | Error>();

/** Compiles an RE2 pattern to a RegExp, or returns the compile error. Results are cached. */
export function compilePattern(pattern: string): RegExp | Error {
  const hit = cache.get(pattern);
  if (hit) return hit;
  const { source, flags } = translatePattern(pattern);
  let result: RegExp | Error;
  try {
    result = new RegExp(source, `${flags}u`);
  } catch {
    try {
      result = new RegExp(source, flags);
    } catch (err) {
      result = err instanceof Error ? err : new Error(String(err));
    }
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(pattern, result);
  return result;
}
