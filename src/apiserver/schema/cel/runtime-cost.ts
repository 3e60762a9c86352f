/**
 * The runtime cost of a rule evaluation, counted while it runs, so a rule that is cheap by
 * estimate but expensive on an actual object is stopped at Kubernetes' per-call limit
 * (1,000,000) instead of running on.
 *
 * cel-js runs every sub-expression through its evaluator's `run(ast, ctx)`; `meteredRun`
 * wraps that method once (on the evaluator's prototype) and, while a meter is active, charges
 * each evaluated node as the static estimator (cost.ts) charges it: 1 for an identifier, a
 * field selection, an index, an operator or a call, 0 for a literal; a comprehension's body
 * per element it actually visits (each visit evaluates its nodes); and, from the values
 * actually seen, a string operation a tenth of the string's length, a regex match that
 * times a quarter of the pattern's length, a traversing list function and `in` the list's
 * length, a comparison or concatenation of strings or lists their size. Outside a metered
 * evaluation the wrapper only delegates.
 *
 * Once a meter is over its limit every further node throws `CostLimitExceeded`; the caller
 * checks the meter after the program returns too, since CEL's `||`, `&&` and quantifiers
 * absorb errors of one branch.
 */
import { Environment } from '@marcbachmann/cel-js';
import { TRAVERSING_LIST_METHODS as ESTIMATED_LIST_METHODS, TRAVERSING_STRING_METHODS as ESTIMATED_STRING_METHODS } from './cost.js';

/** Kubernetes' per-call limit: the most one rule evaluation may cost at runtime. */
export const PER_CALL_LIMIT = 1_000_000;

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;

/**
 * Kubernetes' per-object budget (RuntimeCELCostBudget): the most all rule evaluations of one
 * object may cost together, each evaluation also being held to PER_CALL_LIMIT.
 */
export const PER_OBJECT_BUDGET = 10_000_000;

/**
 * A CostBudget is what remains of the per-object budget while the rules of one object are
 * evaluated; `spend` takes an evaluation's cost and says whether it still fitted. Once an
 * evaluation did not fit the budget is exhausted and no further rule is run.
 */
export class CostBudget {
  remaining: number;
  exhausted = false;
  constructor(readonly total: number = PER_OBJECT_BUDGET) {
    this.remaining = total;
  }

  spend(cost: number): boolean {
    if (this.exhausted) return false;
    if (cost > this.remaining) {
      this.exhausted = true;
      this.remaining = -1;
      return false;
    }
    this.remaining -= cost;
    return true;
  }
}

/** CostLimitExceeded is thrown inside an evaluation that went over its meter's limit. */
export class CostLimitExceeded extends Error {
  constructor(readonly limit: number) {
    super(`call cost exceeds limit of ${limit}`);
    this.name = 'CostLimitExceeded';
  }
}

/** A RuntimeCostMeter counts the cost of one evaluation against a limit. */
export class RuntimeCostMeter {
  cost = 0;
  constructor(readonly limit: number = PER_CALL_LIMIT) {}

  get exceeded(): boolean {
    return this.cost > this.limit;
  }

  /** charge adds `n` and throws CostLimitExceeded once the total is over the limit. */
  charge(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) throw new CostLimitExceeded(this.limit);
  }
}

// The estimator's traversing methods (cost.ts), and those it prices in its own way but that
// walk their receiver at run time too.
const TRAVERSING_STRING_METHODS = new Set([...ESTIMATED_STRING_METHODS, 'contains', 'startsWith', 'endsWith']);
const REGEX_METHODS = new Set(['matches', 'find', 'findAll']);
const TRAVERSING_LIST_METHODS = new Set([...ESTIMATED_LIST_METHODS, 'join']);
const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

/** The size a value has for cost: characters of a string, bytes, items of a list, entries of a map. */
export function sizeOfValue(v: unknown): number | undefined {
  if (typeof v === 'string' || Array.isArray(v) || v instanceof Uint8Array) return v.length;
  if (v instanceof Map) return v.size;
  return undefined;
}

interface CelNode {
  op: string;
  args: unknown;
}
type Run = (this: unknown, ast: CelNode, ctx: unknown) => unknown;

let active: RuntimeCostMeter | undefined;
/** The last value each node evaluated to, in the active evaluation (for the size of receivers and operands). */
let lastValues = new WeakMap<object, unknown>();

const valueOf = (node: unknown): unknown => (node !== null && typeof node === 'object' ? lastValues.get(node) : undefined);
const isString = (v: unknown): v is string => typeof v === 'string';

/** sizeCost is what a node costs besides its 1, from the sizes of the values it worked on. */
export function sizeCost(node: CelNode, result: unknown, operand: (n: unknown) => unknown): number {
  const args = Array.isArray(node.args) ? (node.args as unknown[]) : [];
  switch (node.op) {
    case 'rcall': {
      const name = String(args[0]);
      const recv = operand(args[1]);
      const callArgs = Array.isArray(args[2]) ? (args[2] as unknown[]) : [];
      if (isString(recv) && REGEX_METHODS.has(name)) {
        const pattern = operand(callArgs[0]);
        return Math.ceil((1 + recv.length) * STRING_TRAVERSAL) * Math.ceil((isString(pattern) ? pattern.length : 1) * REGEX_LENGTH);
      }
      if (isString(recv) && TRAVERSING_STRING_METHODS.has(name)) {
        const traversed = name === 'startsWith' || name === 'endsWith' ? (sizeOfValue(operand(callArgs[0])) ?? 0) : recv.length;
        return Math.ceil(traversed * STRING_TRAVERSAL);
      }
      if (Array.isArray(recv) && TRAVERSING_LIST_METHODS.has(name)) return recv.length;
      return 0;
    }
    case 'call': {
      const name = String(args[0]);
      const callArgs = Array.isArray(args[1]) ? (args[1] as unknown[]) : [];
      if (name === 'matches' && callArgs.length === 2) {
        const s = operand(callArgs[0]);
        const pattern = operand(callArgs[1]);
        return Math.ceil((1 + (isString(s) ? s.length : 0)) * STRING_TRAVERSAL) * Math.ceil((isString(pattern) ? pattern.length : 1) * REGEX_LENGTH);
      }
      return 0;
    }
    case 'in': {
      const coll = operand(args[1]);
      return Array.isArray(coll) ? coll.length : 0;
    }
    case '+': {
      const size = sizeOfValue(result);
      if (size === undefined) return 0;
      return Array.isArray(result) ? size : Math.ceil(size * STRING_TRAVERSAL);
    }
    default: {
      if (!COMPARISONS.has(node.op)) return 0;
      const l = operand(args[0]);
      const r = operand(args[1]);
      const ls = sizeOfValue(l);
      const rs = sizeOfValue(r);
      if (ls === undefined || rs === undefined) return 0;
      const traversed = Math.min(ls, rs);
      return Array.isArray(l) || l instanceof Map ? traversed : Math.ceil(traversed * STRING_TRAVERSAL);
    }
  }
}

/** What a node costs by itself: literals and the comprehension's own bookkeeping nothing, anything else 1. */
function nodeCost(op: string): number {
  return op === 'value' || op === 'accuValue' || op === 'accuInc' || op === 'accuPush' ? 0 : 1;
}

let installed = false;

/** installMeter wraps the evaluator's `run` once; it reaches the evaluator through the first node it is given. */
function installMeter(): void {
  if (installed) return;
  const probe = new Environment().parse('true');
  const root = probe.ast as unknown as { evaluate: (ev: object, ast: unknown, ctx: unknown) => unknown };
  let proto: { run: Run } | undefined;
  root.evaluate = (ev: object) => {
    proto = Object.getPrototypeOf(ev) as { run: Run };
    return true;
  };
  probe({});
  if (!proto || typeof proto.run !== 'function') throw new Error('cel-js evaluator has no run method: the runtime cost meter cannot be installed');
  const original = proto.run;
  proto.run = function meteredRun(this: unknown, ast: CelNode, ctx: unknown): unknown {
    const meter = active;
    if (meter === undefined) return original.call(this, ast, ctx);
    if (meter.exceeded) throw new CostLimitExceeded(meter.limit);
    const result = original.call(this, ast, ctx);
    lastValues.set(ast, result);
    meter.charge(nodeCost(ast.op) + sizeCost(ast, result, valueOf));
    return result;
  };
  installed = true;
}

/** A Program is a parsed expression as cel-js returns it: callable, with its root node. */
export interface Program {
  (ctx: Record<string, unknown>): unknown;
  readonly ast: unknown;
}

/**
 * metered runs `program` on `ctx` with `meter` counting its cost (the root node, which cel-js
 * evaluates without `run`, is charged once it returns); it returns what the program returned
 * or threw as `{ value } | { error }`, and the meter says whether the limit was exceeded.
 * Nested metered evaluations are not supported (a rule never evaluates another).
 */
export function metered(meter: RuntimeCostMeter, program: Program, ctx: Record<string, unknown>): { value: unknown } | { error: unknown } {
  installMeter();
  const outer = active;
  active = meter;
  lastValues = new WeakMap();
  try {
    const value = program(ctx);
    const root = program.ast as CelNode;
    if (root !== null && typeof root === 'object' && typeof root.op === 'string') meter.charge(nodeCost(root.op) + sizeCost(root, value, valueOf));
    return { value };
  } catch (error) {
    return { error };
  } finally {
    active = outer;
    lastValues = new WeakMap();
  }
}
