/**
 * Kubernetes resource quantities (`25Gi`, `500m`, `1.5`, `1e3`), held exactly as a BigInt
 * count of nano-units so comparison and arithmetic never round. Grammar:
 *
 *   quantity := sign? number suffix
 *   number   := digits | digits '.' digits? | '.' digits
 *   suffix   := '' | n | u | m | k | M | G | T | P | E       (decimal SI)
 *             | Ki | Mi | Gi | Ti | Pi | Ei                  (binary SI, powers of 1024)
 *             | ('e' | 'E') sign? digits                     (decimal exponent)
 *
 * Values finer than one nano-unit are rounded up (away from zero), as Kubernetes does.
 */

/** The suffix family a quantity was written in; `format()` answers in the same family. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** A QuantityError reports a string that is not a quantity and says what was expected. */
export class QuantityError extends Error {
  constructor(
    readonly input: string,
    detail: string,
  ) {
    super(`invalid quantity ${JSON.stringify(input)}: ${detail}`);
    this.name = 'QuantityError';
  }
}

/** The regular expression Kubernetes quotes for malformed quantities. */
export const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
/** Inputs longer than this are rejected, so hostile input cannot build huge numbers. */
export const MAX_QUANTITY_LENGTH = 256;
/** The largest decimal exponent accepted (`1e1000`). */
export const MAX_QUANTITY_EXPONENT = 1000;

const NANO = 1_000_000_000n;

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const SUFFIX_HELP = 'expected one of n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as e3';

const pow10 = (n: number): bigint => 10n ** BigInt(n);
const abs = (n: bigint): bigint => (n < 0n ? -n : n);

/** Ceiling of a/b for a >= 0, b > 0. */
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** A Quantity is an immutable, exact amount with the suffix family it was written in. */
export class Quantity {
  private constructor(
    /** The amount times 10^9 (nano-units), exact. */
    readonly nanos: bigint,
    /** The family `format()` writes the amount in. */
    readonly family: QuantityFormat,
  ) {}

  /** parse reads a quantity string (or a JSON number); throws QuantityError when it is not one. */
  static parse(input: string | number): Quantity {
    return parseQuantity(input);
  }

  /** A quantity of exactly `nanos` nano-units. */
  static fromNanos(nanos: bigint, family: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(nanos === 0n ? 0n : nanos, family);
  }

  /** A quantity of a whole number of units (`fromInt(3)` is `3`, `fromInt(2048, 'BinarySI')` is `2Ki`). */
  static fromInt(units: bigint | number, family: QuantityFormat = 'DecimalSI'): Quantity {
    if (typeof units === 'number' && !Number.isSafeInteger(units)) {
      throw new RangeError(`Quantity.fromInt needs a safe integer, got ${units}`);
    }
    return Quantity.fromNanos(BigInt(units) * NANO, family);
  }

  /** A quantity of a number of milli-units (`fromMilli(1500)` is `1500m`). */
  static fromMilli(milli: bigint | number, family: QuantityFormat = 'DecimalSI'): Quantity {
    if (typeof milli === 'number' && !Number.isSafeInteger(milli)) {
      throw new RangeError(`Quantity.fromMilli needs a safe integer, got ${milli}`);
    }
    return Quantity.fromNanos(BigInt(milli) * 1_000_000n, family);
  }

  /** The zero quantity. */
  static zero(family: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(0n, family);
  }

  isZero(): boolean {
    return this.nanos === 0n;
  }

  /** -1, 0 or 1. */
  sign(): -1 | 0 | 1 {
    return this.nanos < 0n ? -1 : this.nanos > 0n ? 1 : 0;
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  cmp(other: Quantity): -1 | 0 | 1 {
    return this.nanos < other.nanos ? -1 : this.nanos > other.nanos ? 1 : 0;
  }

  /** Whether both amounts are equal (the suffix family does not matter). */
  equals(other: Quantity): boolean {
    return this.nanos === other.nanos;
  }

  /** The sum, in this quantity's family (or `other`'s when this is zero). */
  add(other: Quantity): Quantity {
    return Quantity.fromNanos(this.nanos + other.nanos, this.isZero() ? other.family : this.family);
  }

  /** The difference, in this quantity's family (or `other`'s when this is zero). */
  sub(other: Quantity): Quantity {
    return Quantity.fromNanos(this.nanos - other.nanos, this.isZero() ? other.family : this.family);
  }

  /** The amount times a whole number. */
  mul(factor: bigint | number): Quantity {
    if (typeof factor === 'number' && !Number.isSafeInteger(factor)) {
      throw new RangeError(`Quantity.mul needs a safe integer, got ${factor}`);
    }
    return Quantity.fromNanos(this.nanos * BigInt(factor), this.family);
  }

  neg(): Quantity {
    return Quantity.fromNanos(-this.nanos, this.family);
  }

  /** The amount in whole units, rounded away from zero (`1500m` gives 2). */
  value(): bigint {
    return roundAway(this.nanos, NANO);
  }

  /** The amount in milli-units, rounded away from zero (`1.5` gives 1500). */
  milliValue(): bigint {
    return roundAway(this.nanos, 1_000_000n);
  }

  /** The amount as a float (inexact for very large or very precise amounts). */
  toNumber(): number {
    return Number(this.toDecimalString());
  }

  /** The amount in plain decimal notation without suffix (`1.5Ki` gives `1536`, `100m` gives `0.1`). */
  toDecimalString(): string {
    const a = abs(this.nanos);
    const whole = a / NANO;
    const frac = (a % NANO).toString().padStart(9, '0').replace(/0+$/, '');
    return `${this.nanos < 0n ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
  }

  /**
   * The canonical string in this quantity's family: the largest suffix that keeps the
   * number whole (`1500m` stays `1500m`, `1000m` becomes `1`, `1048576Ki` becomes `1Mi`).
   * Binary amounts below 1024 or with a fraction are written in decimal SI.
   */
  format(): string {
    if (this.nanos === 0n) return '0';
    const sign = this.nanos < 0n ? '-' : '';
    const a = abs(this.nanos);
    if (this.family === 'BinarySI' && a >= 1024n * NANO && a % NANO === 0n) {
      let n = a / NANO;
      let k = 0;
      while (k < BINARY_SUFFIXES.length - 1 && n % 1024n === 0n) {
        n /= 1024n;
        k++;
      }
      return `${sign}${n}${BINARY_SUFFIXES[k]}`;
    }
    let mantissa = a;
    let exponent = -9;
    while (mantissa % 10n === 0n) {
      mantissa /= 10n;
      exponent++;
    }
    const extra = ((exponent % 3) + 3) % 3;
    mantissa *= pow10(extra);
    exponent -= extra;
    if (this.family === 'DecimalExponent') return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
    if (exponent > 18) {
      mantissa *= pow10(exponent - 18);
      exponent = 18;
    }
    return `${sign}${mantissa}${DECIMAL_BY_EXPONENT.get(exponent)}`;
  }

  toString(): string {
    return this.format();
  }

  /** Quantities serialize as their canonical string. */
  toJSON(): string {
    return this.format();
  }
}

function roundAway(nanos: bigint, unit: bigint): bigint {
  const q = ceilDiv(abs(nanos), unit);
  return nanos < 0n ? -q : q;
}

/**
 * parseQuantity reads a quantity. Surrounding whitespace is ignored; a JSON number is read
 * as its decimal text. Throws a QuantityError naming what was expected.
 */
export function parseQuantity(input: string | number): Quantity {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new QuantityError(String(input), 'expected a finite number');
    input = String(input);
  }
  if (typeof input !== 'string') throw new QuantityError(String(input), 'expected a string or a number');
  const text = input.trim();
  if (text.length > MAX_QUANTITY_LENGTH) {
    throw new QuantityError(text.slice(0, 32) + '...', `expected at most ${MAX_QUANTITY_LENGTH} characters`);
  }
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/s.exec(text);
  const intDigits = m?.[2] ?? '';
  const fracDigits = m?.[3] ?? '';
  if (!m || intDigits.length + fracDigits.length === 0) {
    throw new QuantityError(input, `expected a number (like 5, 1.5 or .5) with an optional sign and suffix, matching '${QUANTITY_PATTERN}'`);
  }
  const negative = m[1] === '-';
  const suffix = m[4];

  let exponent10 = 0;
  let binaryPower = 0;
  let family: QuantityFormat;
  if (Object.prototype.hasOwnProperty.call(DECIMAL_SUFFIXES, suffix)) {
    family = 'DecimalSI';
    exponent10 = DECIMAL_SUFFIXES[suffix]!;
  } else if (BINARY_SUFFIXES.includes(suffix)) {
    family = 'BinarySI';
    binaryPower = BINARY_SUFFIXES.indexOf(suffix) * 10;
  } else if (/^[eE][+-]?[0-9]+$/.test(suffix)) {
    family = 'DecimalExponent';
    exponent10 = Number(suffix.slice(1));
    if (Math.abs(exponent10) > MAX_QUANTITY_EXPONENT) {
      throw new QuantityError(input, `expected an exponent between -${MAX_QUANTITY_EXPONENT} and ${MAX_QUANTITY_EXPONENT}`);
    }
  } else if (/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) {
    throw new QuantityError(input, `unknown suffix ${JSON.stringify(suffix)}; ${SUFFIX_HELP}`);
  } else {
    throw new QuantityError(input, `expected a number followed by an optional suffix, matching '${QUANTITY_PATTERN}'`);
  }

  // amount = digits × 10^(exponent10 - fraction length) × 2^binaryPower; nanos = amount × 10^9.
  let magnitude = BigInt(intDigits + fracDigits || '0') << BigInt(binaryPower);
  const shift = exponent10 - fracDigits.length + 9;
  if (shift >= 0) magnitude *= pow10(shift);
  else magnitude = ceilDiv(magnitude, pow10(-shift));
  return Quantity.fromNanos(negative ? -magnitude : magnitude, family);
}

/** Whether `input` parses as a quantity. */
export function isQuantity(input: unknown): boolean {
  if (typeof input !== 'string' && typeof input !== 'number') return false;
  try {
    parseQuantity(input);
    return true;
  } catch {
    return false;
  }
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`; a sort comparator. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  return a.cmp(b);
}
