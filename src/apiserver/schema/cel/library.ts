/**
 * The CEL library Kubernetes offers to x-kubernetes-validations rules beyond what
 * @marcbachmann/cel-js ships: the strings, lists and regex extensions, `sets.*`,
 * `base64.*` and the quantity library. installLibrary adds it to an Environment; both the
 * typed environments used to check rules and the dynamic one used to run them get it.
 */
import { Environment, EvaluationError } from '@marcbachmann/cel-js';
import { Quantity } from './quantity.js';
import { compilePattern } from '../regex.js';

/** Options every environment of the engine uses. */
export const ENV_OPTIONS = { homogeneousAggregateLiterals: false, enableOptionalTypes: true } as const;

/** A SetsLibrary is the receiver of `sets.contains(...)` and friends. */
export class SetsLibrary {}
/** A Base64Library is the receiver of `base64.encode(...)` / `base64.decode(...)`. */
export class Base64Library {}

function fail(message: string): never {
  throw new EvaluationError(message);
}

/** CEL equality of two runtime values: numbers compare across int/double, lists and maps deeply. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = typeof a === 'number' || typeof a === 'bigint';
  const nb = typeof b === 'number' || typeof b === 'bigint';
  if (na && nb) return a == b; // eslint-disable-line eqeqeq -- int/double comparison
  if (a instanceof Quantity && b instanceof Quantity) return a.compare(b) === 0;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ea = a instanceof Map ? [...a.entries()] : Object.entries(a);
    const mb = b instanceof Map ? b : new Map(Object.entries(b));
    return ea.length === mb.size && ea.every(([k, v]) => mb.has(k) && celEquals(v, mb.get(k)));
  }
  return false;
}

function isNumeric(x: unknown): x is number | bigint {
  return typeof x === 'number' || typeof x === 'bigint';
}

function compareScalars(a: unknown, b: unknown): number {
  if (isNumeric(a) && isNumeric(b)) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (a instanceof Quantity && b instanceof Quantity) return a.compare(b);
  return fail('no such overload: list elements are not comparable');
}

function listOf(x: unknown): unknown[] {
  return Array.isArray(x) ? x : fail('no such overload: expected a list');
}

function toQuantity(x: unknown): Quantity {
  if (x instanceof Quantity) return x;
  if (typeof x === 'bigint') return new Quantity(x);
  return fail('no such overload: expected a quantity');
}

function regex(pattern: string): RegExp {
  const re = compilePattern(pattern);
  return re instanceof RegExp ? re : fail(`invalid regular expression: ${pattern}`);
}

/** Adds the Kubernetes CEL extensions to env (before it is cloned). */
export function installLibrary(env: Environment): Environment {
  env
    .registerType('Quantity', Quantity)
    .registerType('SetsLibrary', SetsLibrary)
    .registerType('Base64Library', Base64Library)
    .registerConstant('sets', 'SetsLibrary', new SetsLibrary())
    .registerConstant('base64', 'Base64Library', new Base64Library())
    // strings extension
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      const chars = [...s];
      if (i < 0n || i > BigInt(chars.length)) fail(`index out of range: ${i}`);
      return chars[Number(i)] ?? '';
    })
    .registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) => s.split(from).join(to))
    .registerFunction('string.replace(string, string, int): string', (s: string, from: string, to: string, n: bigint) => {
      if (n < 0n) return s.split(from).join(to);
      let out = s;
      let pos = 0;
      for (let i = 0n; i < n; i++) {
        const at = out.indexOf(from, pos);
        if (at < 0) break;
        out = out.slice(0, at) + to + out.slice(at + from.length);
        pos = at + to.length + (from.length === 0 ? 1 : 0);
      }
      return out;
    })
    .registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''))
    // regex extension
    .registerFunction('string.find(string): string', (s: string, p: string) => regex(p).exec(s)?.[0] ?? '')
    .registerFunction('string.findAll(string): list<string>', (s: string, p: string) =>
      [...s.matchAll(new RegExp(regex(p).source, `${regex(p).flags}g`))].map((m) => m[0]),
    )
    .registerFunction('string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) => {
      const all = [...s.matchAll(new RegExp(regex(p).source, `${regex(p).flags}g`))].map((m) => m[0]);
      return n < 0n ? all : all.slice(0, Number(n));
    })
    // lists extension
    .registerFunction('list.isSorted(): bool', (l: unknown[]) => {
      for (let i = 1; i < l.length; i++) if (compareScalars(l[i - 1], l[i]) > 0) return false;
      return true;
    })
    .registerFunction('list.sum(): dyn', (l: unknown[]) => {
      if (l.some((x) => typeof x === 'number')) return l.reduce<number>((acc, x) => acc + Number(x), 0);
      return l.reduce<bigint>((acc, x) => acc + (typeof x === 'bigint' ? x : fail('no such overload: sum of non-numbers')), 0n);
    })
    .registerFunction('list.min(): dyn', (l: unknown[]) =>
      l.length ? l.reduce((a, b) => (compareScalars(b, a) < 0 ? b : a)) : fail('min called on an empty list'),
    )
    .registerFunction('list.max(): dyn', (l: unknown[]) =>
      l.length ? l.reduce((a, b) => (compareScalars(b, a) > 0 ? b : a)) : fail('max called on an empty list'),
    )
    .registerFunction('list.indexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(l.findIndex((y) => celEquals(x, y))))
    .registerFunction('list.lastIndexOf(dyn): int', (l: unknown[], x: unknown) => {
      for (let i = l.length - 1; i >= 0; i--) if (celEquals(x, l[i])) return BigInt(i);
      return -1n;
    })
    .registerFunction('list.slice(int, int): list', (l: unknown[], from: bigint, to: bigint) => {
      if (from < 0n || to < from || to > BigInt(l.length)) fail(`cannot slice(${from}, ${to}) a list of size ${l.length}`);
      return l.slice(Number(from), Number(to));
    })
    .registerFunction('list.flatten(): list', (l: unknown[]): unknown[] => l.flatMap((x): unknown[] => (Array.isArray(x) ? x : [x])))
    .registerFunction('list.distinct(): list', (l: unknown[]) => l.filter((x, i) => l.findIndex((y) => celEquals(x, y)) === i))
    .registerFunction('list.reverse(): list', (l: unknown[]) => [...l].reverse())
    .registerFunction('list.sort(): list', (l: unknown[]) => [...l].sort(compareScalars))
    // sets extension
    .registerFunction('SetsLibrary.contains(list, list): bool', (_: SetsLibrary, a: unknown, b: unknown) =>
      listOf(b).every((x) => listOf(a).some((y) => celEquals(x, y))),
    )
    .registerFunction('SetsLibrary.equivalent(list, list): bool', (_: SetsLibrary, a: unknown, b: unknown) => {
      const la = listOf(a);
      const lb = listOf(b);
      return la.every((x) => lb.some((y) => celEquals(x, y))) && lb.every((x) => la.some((y) => celEquals(x, y)));
    })
    .registerFunction('SetsLibrary.intersects(list, list): bool', (_: SetsLibrary, a: unknown, b: unknown) =>
      listOf(a).some((x) => listOf(b).some((y) => celEquals(x, y))),
    )
    // encoders
    .registerFunction('Base64Library.encode(bytes): string', (_: Base64Library, b: Uint8Array) => Buffer.from(b).toString('base64'))
    .registerFunction('Base64Library.decode(string): bytes', (_: Base64Library, s: string) => {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || (s.includes('=') && s.length % 4 !== 0)) fail('illegal base64 data');
      return new Uint8Array(Buffer.from(s, 'base64'));
    })
    // quantity library
    .registerFunction('quantity(string): Quantity', (s: string) => Quantity.parse(s) ?? fail(`invalid quantity: ${JSON.stringify(s)}`))
    .registerFunction('isQuantity(string): bool', (s: string) => Quantity.parse(s) !== undefined)
    .registerFunction('Quantity.sign(): int', (q: Quantity) => q.sign())
    .registerFunction('Quantity.isInteger(): bool', (q: Quantity) => q.isInteger())
    .registerFunction('Quantity.asInteger(): int', (q: Quantity) => (q.isInteger() ? q.num : fail('cannot convert value to integer')))
    .registerFunction('Quantity.asApproximateFloat(): double', (q: Quantity) => q.asApproximateFloat())
    .registerFunction('Quantity.add(Quantity): Quantity', (q: Quantity, o: Quantity) => q.add(toQuantity(o)))
    .registerFunction('Quantity.add(int): Quantity', (q: Quantity, o: bigint) => q.add(toQuantity(o)))
    .registerFunction('Quantity.sub(Quantity): Quantity', (q: Quantity, o: Quantity) => q.sub(toQuantity(o)))
    .registerFunction('Quantity.sub(int): Quantity', (q: Quantity, o: bigint) => q.sub(toQuantity(o)))
    .registerFunction('Quantity.isGreaterThan(Quantity): bool', (q: Quantity, o: Quantity) => q.compare(o) > 0)
    .registerFunction('Quantity.isLessThan(Quantity): bool', (q: Quantity, o: Quantity) => q.compare(o) < 0)
    .registerFunction('Quantity.compareTo(Quantity): int', (q: Quantity, o: Quantity) => BigInt(q.compare(o)))
    .registerOperator('Quantity == Quantity', (a: Quantity, b: Quantity) => a.compare(b) === 0);
  return env;
}

let library: Environment | undefined;

/**
 * A fresh environment with the library and nothing else declared: a child of one environment
 * the library is installed in once (installing it is ~0.6 ms, and every schema with rules
 * needs an environment of its own for its types). What the child declares stays in the child.
 */
export function newLibraryEnvironment(): Environment {
  library ??= installLibrary(new Environment(ENV_OPTIONS));
  return library.clone(ENV_OPTIONS);
}
