/**
 * Label selectors: the requirement model, matching, the object form used in specs
 * (`{matchLabels, matchExpressions}`) and its validation. The string form used in
 * `?labelSelector=` is parsed by label-selector-parser.ts.
 */
import { errors, type StatusCause } from '../errors.js';
import { isPlainObject } from '../object.js';
import {
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  fieldTypeInvalid,
  formatBadValue,
  isQualifiedName,
  isValidLabelValue,
  validateLabelName,
  validateLabels,
} from '../validation/index.js';

/** The operators a label requirement can use; `GreaterThan`/`LessThan` exist only in the string form. */
export type LabelOperator = 'In' | 'NotIn' | 'Equals' | 'DoubleEquals' | 'NotEquals' | 'Exists' | 'DoesNotExist' | 'GreaterThan' | 'LessThan';

/** A LabelRequirement is one condition on one label key; a selector ANDs its requirements. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and de-duplicated for In/NotIn; exactly one for the binary operators; none for Exists/DoesNotExist. */
  readonly values: readonly string[];
}

/** The operators of a `matchExpressions` entry. */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** A LabelSelectorRequirement is one `matchExpressions` entry of the object form. */
export interface LabelSelectorRequirement {
  key: string;
  operator: LabelSelectorOperator;
  values?: string[];
}

/** The object form of a label selector (metav1.LabelSelector). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type Labels = Readonly<Record<string, string>> | undefined | null;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** parseInt64 reads a base-10 integer the way Go's strconv.ParseInt does, or undefined. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** A field path for error messages: `base.child`, or just `child` at the top. */
function childPath(base: string, child: string): string {
  return base ? `${base}.${child}` : child;
}

/** The problems of a requirement, as field causes under `path` (`key`, `values`, `values[0]`...). */
function requirementProblems(key: string, operator: LabelOperator, values: readonly string[], path: string): StatusCause[] {
  const problems: StatusCause[] = [];
  const keyMsgs = isQualifiedName(key);
  if (keyMsgs.length) problems.push(fieldInvalid(childPath(path, 'key'), key, keyMsgs.join('; ')));
  const valuesPath = childPath(path, 'values');
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) problems.push(fieldInvalid(valuesPath, values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case 'Equals':
    case 'DoubleEquals':
    case 'NotEquals':
      if (values.length !== 1) problems.push(fieldInvalid(valuesPath, values, 'exact-match compatibility requires one single value'));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) problems.push(fieldInvalid(valuesPath, values, 'values set must be empty for exists and does not exist'));
      break;
    case 'GreaterThan':
    case 'LessThan':
      if (values.length !== 1) problems.push(fieldInvalid(valuesPath, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          problems.push(fieldInvalid(`${valuesPath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default: {
      const never: never = operator;
      problems.push(fieldInvalid(childPath(path, 'operator'), never, 'not a valid selector operator'));
    }
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) problems.push(fieldInvalid(`${valuesPath}[${i}][${key}]`, v, msgs.join('; ')));
  });
  return problems;
}

/** The message of a list of causes: the one message, or all of them in brackets. */
function summarize(causes: readonly StatusCause[]): string {
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  return parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
}

/**
 * newLabelRequirement builds a validated requirement. It throws a 400 ApiError whose
 * message starts `unable to parse requirement: ` and names the bad key or value.
 */
export function newLabelRequirement(key: string, operator: LabelOperator, values: readonly string[]): LabelRequirement {
  const problems = requirementProblems(key, operator, values, '');
  if (problems.length) throw errors.badRequest(`unable to parse requirement: ${summarize(problems)}`);
  const normalized = operator === 'In' || operator === 'NotIn' ? [...new Set(values)].sort() : [...values];
  return Object.freeze({ key, operator, values: Object.freeze(normalized) });
}

/** The inside of `(...)`; a set holding only the empty value is written `,` because `()` means no values. */
function formatValueSet(values: readonly string[]): string {
  const joined = values.join(',');
  return joined === '' && values.length > 0 ? ',' : joined;
}

/** A requirement in the string form (`a in (x,y)`, `!a`, `a!=b`, ...). */
export function formatLabelRequirement(r: LabelRequirement): string {
  switch (r.operator) {
    case 'In':
      return `${r.key} in (${formatValueSet(r.values)})`;
    case 'NotIn':
      return `${r.key} notin (${formatValueSet(r.values)})`;
    case 'Equals':
      return `${r.key}=${r.values[0] ?? ''}`;
    case 'DoubleEquals':
      return `${r.key}==${r.values[0] ?? ''}`;
    case 'NotEquals':
      return `${r.key}!=${r.values[0] ?? ''}`;
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    case 'GreaterThan':
      return `${r.key}>${r.values[0] ?? ''}`;
    case 'LessThan':
      return `${r.key}<${r.values[0] ?? ''}`;
    default: {
      const never: never = r.operator;
      return never;
    }
  }
}

/** Whether one requirement holds for a label set. */
export function requirementMatches(r: LabelRequirement, labels: Labels): boolean {
  const has = !!labels && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'In':
    case 'Equals':
    case 'DoubleEquals':
      return has && r.values.includes(value!);
    case 'NotIn':
    case 'NotEquals':
      return !has || !r.values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'GreaterThan':
    case 'LessThan': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(value!);
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'GreaterThan' ? actual > bound : actual < bound;
    }
    default: {
      const never: never = r.operator;
      return never;
    }
  }
}

/**
 * A LabelSelector matches label sets against requirements that must all hold. The empty
 * selector matches everything; `LabelSelector.nothing()` matches nothing.
 */
export class LabelSelector {
  private readonly reqs: readonly LabelRequirement[];
  private readonly matchesNothing: boolean;

  private constructor(reqs: readonly LabelRequirement[], matchesNothing: boolean) {
    // Sorting by key (stably) gives one string form per selector.
    this.reqs = Object.freeze([...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
    this.matchesNothing = matchesNothing;
  }

  /** A selector that ANDs the given (already validated) requirements. */
  static of(reqs: readonly LabelRequirement[]): LabelSelector {
    return new LabelSelector(reqs, false);
  }

  /** The selector that matches every label set. */
  static everything(): LabelSelector {
    return new LabelSelector([], false);
  }

  /** The selector that matches no label set (what a missing object-form selector means). */
  static nothing(): LabelSelector {
    return new LabelSelector([], true);
  }

  /** True when the selector has no requirements and so matches everything. */
  get empty(): boolean {
    return !this.matchesNothing && this.reqs.length === 0;
  }

  /** The requirements, sorted by key. */
  requirements(): readonly LabelRequirement[] {
    return this.reqs;
  }

  /** Whether every requirement holds for `labels` (a missing label set has no labels). */
  matches(labels: Labels): boolean {
    if (this.matchesNothing) return false;
    for (const r of this.reqs) if (!requirementMatches(r, labels)) return false;
    return true;
  }

  /**
   * The single value `key` must have for the selector to match (from `key=v`, `key==v` or
   * `key in (v)`), or undefined; lets a store narrow a scan by an indexed label.
   */
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.reqs) {
      if (r.key !== key) continue;
      if ((r.operator === 'Equals' || r.operator === 'DoubleEquals' || r.operator === 'In') && r.values.length === 1) {
        return r.values[0];
      }
    }
    return undefined;
  }

  /** A new selector with one more requirement. */
  add(r: LabelRequirement): LabelSelector {
    return new LabelSelector([...this.reqs, r], this.matchesNothing);
  }

  /** The string form, which `parseLabelSelector` reads back; empty for the match-all selector. */
  toString(): string {
    return this.reqs.map(formatLabelRequirement).join(',');
  }
}

/** A selector matching exactly the label sets that contain every `key=value` of `set`. */
export function labelSelectorFromSet(set: Readonly<Record<string, string>>): LabelSelector {
  return LabelSelector.of(Object.entries(set).map(([k, v]) => newLabelRequirement(k, 'Equals', [v])));
}

/**
 * validateLabelSelector checks the object form and returns field causes under `fieldPath`
 * (e.g. `spec.selector.matchExpressions[0].values`): keys are label keys, values label
 * values, In/NotIn need values and Exists/DoesNotExist must have none.
 */
export function validateLabelSelector(selector: unknown, fieldPath = ''): StatusCause[] {
  if (selector === undefined || selector === null) return [];
  if (!isPlainObject(selector)) return [fieldTypeInvalid(fieldPath, selector, 'a label selector must be an object')];
  const causes: StatusCause[] = [];
  const { matchLabels, matchExpressions } = selector;
  causes.push(...validateLabels(matchLabels, childPath(fieldPath, 'matchLabels')));
  if (matchExpressions === undefined || matchExpressions === null) return causes;
  const exprsPath = childPath(fieldPath, 'matchExpressions');
  if (!Array.isArray(matchExpressions)) {
    causes.push(fieldTypeInvalid(exprsPath, matchExpressions, 'must be a list of requirements'));
    return causes;
  }
  matchExpressions.forEach((expr: unknown, i) => {
    const p = `${exprsPath}[${i}]`;
    if (!isPlainObject(expr)) {
      causes.push(fieldTypeInvalid(p, expr, 'a requirement must be an object with key, operator and values'));
      return;
    }
    const { key, operator } = expr;
    const values = expr['values'] ?? [];
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      causes.push(fieldTypeInvalid(`${p}.values`, values, 'must be a list of strings'));
      return;
    }
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) causes.push(fieldRequired(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          causes.push(fieldForbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        }
        break;
      default:
        causes.push(fieldInvalid(`${p}.operator`, operator, 'not a valid selector operator'));
    }
    if (typeof key !== 'string') causes.push(fieldTypeInvalid(`${p}.key`, key, 'must be a string'));
    else causes.push(...validateLabelName(key, `${p}.key`));
    (values as string[]).forEach((v, j) => {
      for (const msg of isValidLabelValue(v)) causes.push(fieldInvalid(`${p}.values[${j}]`, v, msg));
    });
  });
  return causes;
}

/**
 * labelSelectorFromObject turns the object form into a matcher. As in Kubernetes, a
 * missing selector (undefined/null) matches nothing and `{}` matches everything; pass
 * `sel ?? {}` where absence should mean "all". Invalid selectors throw a 400 ApiError
 * naming the bad field.
 */
export function labelSelectorFromObject(selector: LabelSelectorObject | null | undefined): LabelSelector {
  if (selector === undefined || selector === null) return LabelSelector.nothing();
  const causes = validateLabelSelector(selector);
  if (causes.length) throw errors.badRequest(`invalid label selector: ${summarize(causes)}`, causes);
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) reqs.push(newLabelRequirement(k, 'Equals', [v]));
  for (const expr of selector.matchExpressions ?? []) reqs.push(newLabelRequirement(expr.key, expr.operator, expr.values ?? []));
  return LabelSelector.of(reqs);
}

/**
 * formatLabelSelector renders the object form as the string form (`a=b,c in (x,y)`), the
 * shape `?labelSelector=` takes; `{}` gives the empty string. Throws like labelSelectorFromObject.
 */
export function formatLabelSelector(selector: LabelSelectorObject): string {
  if (!isPlainObject(selector)) throw errors.badRequest(`invalid label selector: expected an object, got ${formatBadValue(selector)}`);
  return labelSelectorFromObject(selector).toString();
}
