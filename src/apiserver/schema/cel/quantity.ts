/**
 * A Quantity is an exact Kubernetes quantity (`500m`, `1.5Gi`, `2e3`) as a fraction of two
 * BigInts, for the CEL quantity library (`quantity("1Gi").isGreaterThan(quantity("512Mi"))`).
 */

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const MAX_EXPONENT = 400;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

export class Quantity {
  readonly num: bigint;
  readonly den: bigint;

  constructor(num: bigint, den = 1n) {
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    const g = gcd(num, den) || 1n;
    this.num = num / g;
    this.den = den / g;
  }

  /** Parses a quantity string; returns undefined when it is not one. */
  static parse(s: string): Quantity | undefined {
    const m = QUANTITY.exec(s.trim());
    if (!m || m[1].replace(/[+-]/, '').length > 100) return undefined;
    const [whole, frac = ''] = m[1].replace('+', '').split('.');
    let num = BigInt(`${whole === '-' ? '-0' : whole || '0'}${frac}`);
    if (whole.startsWith('-') && num > 0n) num = -num;
    let den = 10n ** BigInt(frac.length);
    const suffix = m[2] ?? '';
    if (suffix in BINARY) num *= 1024n ** BigInt(BINARY[suffix]);
    else {
      const exp = suffix in DECIMAL ? DECIMAL[suffix] : suffix ? Number(suffix.slice(1)) : 0;
      if (Math.abs(exp) > MAX_EXPONENT) return undefined;
      if (exp >= 0) num *= 10n ** BigInt(exp);
      else den *= 10n ** BigInt(-exp);
    }
    return new Quantity(num, den);
  }

  compare(o: Quantity): number {
    const l = this.num * o.den;
    const r = o.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }

  add(o: Quantity): Quantity {
    return new Quantity(this.num * o.den + o.num * this.den, this.den * o.den);
  }

  sub(o: Quantity): Quantity {
    return new Quantity(this.num * o.den - o.num * this.den, this.den * o.den);
  }

  sign(): bigint {
    return this.num > 0n ? 1n : this.num < 0n ? -1n : 0n;
  }

  isInteger(): boolean {
    return this.den === 1n && this.num >= INT64_MIN && this.num <= INT64_MAX;
  }

  asApproximateFloat(): number {
    return Number(this.num) / Number(this.den);
  }

  toString(): string {
    if (this.den === 1n) return this.num.toString();
    return String(this.asApproximateFloat());
  }
}
