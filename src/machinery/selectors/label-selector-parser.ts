/**
 * The parser of the label selector string form used by `?labelSelector=` and `kubectl -l`:
 *
 *   selector    := '' | requirement (',' requirement)*
 *   requirement := '!' KEY | KEY | KEY ('=' | '==' | '!=') VALUE? | KEY ('in' | 'notin') '(' values ')'
 *                | KEY ('>' | '<') INTEGER
 *   values      := VALUE? (',' VALUE?)*
 *
 * Whitespace between tokens is ignored. Everything that is not whitespace or one of
 * `= ! ( ) , > <` is part of a word; keys and values are then checked as label keys/values.
 */
import { errors } from '../errors.js';
import { LabelSelector, newLabelRequirement, type LabelOperator, type LabelRequirement } from './label-selector.js';

type TokenKind = 'word' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'end';

interface Token {
  kind: TokenKind;
  text: string;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (WHITESPACE.has(ch)) {
      i++;
      continue;
    }
    if (SPECIAL.has(ch)) {
      const next = input[i + 1];
      if ((ch === '!' || ch === '=') && next === '=') {
        tokens.push({ kind: ch === '!' ? '!=' : '==', text: ch + next });
        i += 2;
      } else {
        tokens.push({ kind: ch as TokenKind, text: ch });
        i++;
      }
      continue;
    }
    let j = i;
    while (j < input.length && !SPECIAL.has(input[j]) && !WHITESPACE.has(input[j])) j++;
    tokens.push({ kind: 'word', text: input.slice(i, j) });
    i = j;
  }
  tokens.push({ kind: 'end', text: '' });
  return tokens;
}

class RequirementError extends Error {}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos];
  }

  private next(): Token {
    const t = this.tokens[this.pos];
    if (t.kind !== 'end') this.pos++;
    return t;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    if (this.peek().kind === 'end') return reqs;
    for (;;) {
      const start = this.peek();
      if (start.kind !== 'word' && start.kind !== '!') {
        throw errors.badRequest(`found '${start.text}', expected: !, identifier, or 'end of string'`);
      }
      try {
        reqs.push(this.requirement());
      } catch (err) {
        if (err instanceof RequirementError) throw errors.badRequest(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      const after = this.next();
      if (after.kind === 'end') return reqs;
      if (after.kind !== ',') throw errors.badRequest(`found '${after.text}', expected: ',' or 'end of string'`);
      const following = this.peek();
      if (following.kind !== 'word' && following.kind !== '!') {
        throw errors.badRequest(`found '${following.text}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let negated = false;
    if (this.peek().kind === '!') {
      this.next();
      negated = true;
    }
    const keyTok = this.next();
    if (keyTok.kind !== 'word') throw new RequirementError(`found '${keyTok.text}', expected: identifier`);
    const key = keyTok.text;
    const follow = this.peek().kind;
    if (follow === ',' || follow === 'end') return this.build(key, negated ? 'DoesNotExist' : 'Exists', []);
    if (negated) throw new RequirementError(`found '${this.peek().text}', expected: ',' or 'end of string' after '!${key}'`);

    const opTok = this.next();
    let op: LabelOperator;
    if (opTok.kind === '=') op = 'Equals';
    else if (opTok.kind === '==') op = 'DoubleEquals';
    else if (opTok.kind === '!=') op = 'NotEquals';
    else if (opTok.kind === '>') op = 'GreaterThan';
    else if (opTok.kind === '<') op = 'LessThan';
    else if (opTok.kind === 'word' && opTok.text === 'in') op = 'In';
    else if (opTok.kind === 'word' && opTok.text === 'notin') op = 'NotIn';
    else {
      throw new RequirementError(`found '${opTok.text}', expected: '=', '!=', '==', 'in', 'notin', '>' or '<'`);
    }

    if (op === 'In' || op === 'NotIn') return this.build(key, op, this.valueSet());
    return this.build(key, op, [this.singleValue()]);
  }

  /** The value after `=`, `==`, `!=`, `>` or `<`; empty when the requirement ends there. */
  private singleValue(): string {
    const t = this.peek();
    if (t.kind === ',' || t.kind === 'end') return '';
    this.next();
    if (t.kind !== 'word') throw new RequirementError(`found '${t.text}', expected: identifier`);
    return t.text;
  }

  /** The parenthesised list after `in`/`notin`; empty entries stand for the empty value. */
  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') throw new RequirementError(`found '${open.text}', expected: '('`);
    const values: string[] = [];
    if (this.peek().kind === ')') {
      this.next();
      return values;
    }
    for (;;) {
      let value = '';
      if (this.peek().kind === 'word') value = this.next().text;
      values.push(value);
      const t = this.next();
      if (t.kind === ')') return values;
      if (t.kind !== ',') throw new RequirementError(`found '${t.text}', expected: ',', ')' or identifier`);
    }
  }

  /** A validated requirement; newLabelRequirement words its errors as `unable to parse requirement: ...`. */
  private build(key: string, op: LabelOperator, values: string[]): LabelRequirement {
    return newLabelRequirement(key, op, values);
  }
}

/**
 * parseLabelSelector reads the string form (`app=web,tier in (a,b),!canary`). The empty
 * string selects everything. Syntax errors and invalid keys or values throw a 400 ApiError
 * naming the offending part, e.g. `unable to parse requirement: key: Invalid value: ...`.
 */
export function parseLabelSelector(input: string): LabelSelector {
  if (typeof input !== 'string') throw errors.badRequest('a label selector must be a string');
  return LabelSelector.of(new Parser(tokenize(input)).parse());
}
