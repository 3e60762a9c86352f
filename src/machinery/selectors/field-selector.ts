/**
 * Field selectors (`?fieldSelector=metadata.name=foo,status.phase!=Done`): terms joined by
 * commas, each `field=value`, `field==value` or `field!=value`. In values a backslash
 * escapes `\`, `,`, `=` and `!`; an unescaped `,` or `=` inside a value is an error.
 */
import { errors } from '../errors.js';

/** The operators of a field requirement. */
export type FieldOperator = 'Equals' | 'DoubleEquals' | 'NotEquals';

/** A FieldRequirement is one `field<op>value` term of a field selector. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  /** The unescaped value. */
  readonly value: string;
}

const OPERATORS: ReadonlyArray<[string, FieldOperator]> = [
  ['!=', 'NotEquals'],
  ['==', 'DoubleEquals'],
  ['=', 'Equals'],
];

const SYMBOL: Record<FieldOperator, string> = { Equals: '=', DoubleEquals: '==', NotEquals: '!=' };

/** escapeFieldValue escapes `\`, `,` and `=` so a value can be written into a field selector. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** unescapeFieldValue undoes escapeFieldValue, rejecting unknown escapes and bare `,`/`=`. */
export function unescapeFieldValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\') {
      const n = value[i + 1];
      if (n === undefined) throw errors.badRequest('invalid field selector: invalid escape sequence: \\');
      if (n !== '\\' && n !== ',' && n !== '=' && n !== '!') {
        throw errors.badRequest(`invalid field selector: invalid escape sequence: \\${n}`);
      }
      out += n;
      i++;
    } else if (c === ',' || c === '=') {
      throw errors.badRequest(`invalid field selector: unescaped character ${c}`);
    } else {
      out += c;
    }
  }
  return out;
}

/** Splits on commas that are not escaped; escapes stay in the terms. */
function splitTerms(input: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (c === '\\') i++;
    else if (c === ',') {
      terms.push(input.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(input.slice(start));
  return terms;
}

/** Finds the first unescaped operator of a term. */
function splitTerm(term: string): { field: string; op: FieldOperator; rawValue: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    for (const [symbol, op] of OPERATORS) {
      if (term.startsWith(symbol, i)) return { field: term.slice(0, i), op, rawValue: term.slice(i + symbol.length) };
    }
  }
  return undefined;
}

/** Whether one requirement holds; a missing field counts as the empty string. */
function requirementMatches(r: FieldRequirement, fields: Readonly<Record<string, string>>): boolean {
  const actual = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field] : '';
  return r.operator === 'NotEquals' ? actual !== r.value : actual === r.value;
}

/** A FieldSelector matches field sets (e.g. `{'metadata.name': 'x'}`) against requirements that must all hold. */
export class FieldSelector {
  private readonly reqs: readonly FieldRequirement[];

  private constructor(reqs: readonly FieldRequirement[]) {
    this.reqs = Object.freeze([...reqs].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0)));
  }

  /** A selector that ANDs the given requirements. */
  static of(reqs: readonly FieldRequirement[]): FieldSelector {
    return new FieldSelector(reqs.map((r) => Object.freeze({ ...r })));
  }

  /** The selector that matches everything. */
  static everything(): FieldSelector {
    return new FieldSelector([]);
  }

  /** True when the selector has no requirements. */
  get empty(): boolean {
    return this.reqs.length === 0;
  }

  /** The requirements, sorted by field; the server checks each field is supported for the kind. */
  requirements(): readonly FieldRequirement[] {
    return this.reqs;
  }

  /** Whether every requirement holds for `fields`. */
  matches(fields: Readonly<Record<string, string>>): boolean {
    for (const r of this.reqs) if (!requirementMatches(r, fields)) return false;
    return true;
  }

  /** The value `field` must equal for a match (from `field=v` or `field==v`), or undefined. */
  requiresExactMatch(field: string): string | undefined {
    for (const r of this.reqs) if (r.field === field && r.operator !== 'NotEquals') return r.value;
    return undefined;
  }

  /** The string form with values escaped; `parseFieldSelector` reads it back. */
  toString(): string {
    return this.reqs.map((r) => `${r.field}${SYMBOL[r.operator]}${escapeFieldValue(r.value)}`).join(',');
  }
}

/**
 * parseFieldSelector reads the string form. The empty string selects everything; empty
 * terms (`a=b,,c=d`) are skipped. A term without an operator or a badly escaped value
 * throws a 400 ApiError saying what it could not understand.
 */
export function parseFieldSelector(input: string): FieldSelector {
  if (typeof input !== 'string') throw errors.badRequest('a field selector must be a string');
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(input)) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw errors.badRequest(`invalid selector: '${input}'; can't understand '${term}'`);
    reqs.push({ field: parts.field, operator: parts.op, value: unescapeFieldValue(parts.rawValue) });
  }
  return FieldSelector.of(reqs);
}

/** A selector requiring `field=value` for every entry of `set`. */
export function fieldSelectorFromSet(set: Readonly<Record<string, string>>): FieldSelector {
  return FieldSelector.of(Object.entries(set).map(([field, value]) => ({ field, operator: 'Equals' as const, value })));
}

/** The 400 error the API server answers for a field a kind cannot be selected by. */
export function fieldLabelNotSupported(field: string): never {
  throw errors.badRequest(`field label not supported: ${field}`);
}

/**
 * assertFieldsSupported throws `field label not supported: <name>` (400) for the first
 * requirement whose field `supported` does not contain (or accept, when a predicate).
 */
export function assertFieldsSupported(selector: FieldSelector, supported: Iterable<string> | ((field: string) => boolean)): void {
  let accepts: (field: string) => boolean;
  if (typeof supported === 'function') accepts = supported;
  else {
    const set = new Set(supported);
    accepts = (field) => set.has(field);
  }
  for (const r of selector.requirements()) if (!accepts(r.field)) fieldLabelNotSupported(r.field);
}
