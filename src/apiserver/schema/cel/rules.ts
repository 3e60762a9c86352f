/**
 * Compiling and running x-kubernetes-validations rules. A rule is parsed once in a shared
 * dynamic environment (cached by its text) and type-checked once against the schema's CEL
 * types; evaluation turns every outcome — false, a thrown evaluation error, a non-bool
 * result — into a StatusCause, never an exception.
 */
import { Environment, Optional, type ParseResult } from '@marcbachmann/cel-js';
import type { ValidationRule } from '../../registry/resource-type.js';
import type { StatusCause } from '../../../machinery/errors.js';
import { ENV_OPTIONS, installLibrary } from './library.js';
import { type CostBudget, metered, PER_CALL_LIMIT, RuntimeCostMeter } from './runtime-cost.js';

/** A CompiledRule is one x-kubernetes-validations entry, ready to evaluate. */
export interface CompiledRule {
  readonly rule: ValidationRule;
  /** The position of the rule in x-kubernetes-validations. */
  readonly index: number;
  readonly program: ParseResult | undefined;
  readonly messageProgram: ParseResult | undefined;
  readonly usesOldSelf: boolean;
  readonly optionalOldSelf: boolean;
  /** Why the rule does not compile (parse or type error), as Kubernetes words it. */
  readonly ruleError: string | undefined;
  /** Why messageExpression does not compile. */
  readonly messageError: string | undefined;
}

function dynamicEnvironment(optionalOldSelf: boolean): Environment {
  return installLibrary(new Environment(ENV_OPTIONS))
    .registerVariable('self', 'dyn')
    .registerVariable('oldSelf', optionalOldSelf ? 'optional<dyn>' : 'dyn');
}

const plainEnv = dynamicEnvironment(false);
const optionalEnv = dynamicEnvironment(true);
const MAX_CACHE = 5000;
const parseCache = new Map<string, ParseResult | Error>();

/** Parses an expression in the evaluation environment, caching programs by their text. */
function parseCached(text: string, optionalOldSelf: boolean): ParseResult | Error {
  const key = `${optionalOldSelf ? 'o' : 'p'}:${text}`;
  const hit = parseCache.get(key);
  if (hit) return hit;
  let result: ParseResult | Error;
  try {
    result = (optionalOldSelf ? optionalEnv : plainEnv).parse(text);
  } catch (err) {
    result = err instanceof Error ? err : new Error(String(err));
  }
  if (parseCache.size >= MAX_CACHE) parseCache.delete(parseCache.keys().next().value as string);
  parseCache.set(key, result);
  return result;
}

interface Located {
  summary?: string;
  range?: { start: number };
  message: string;
}

/** Words cel-js type-check errors the way cel-go does where they differ. */
function celGoWording(summary: string): string {
  return summary.replace(/^No such key: (.+)$/, "undefined field '$1'").replace(/^Unknown variable: (.+)$/, "undeclared reference to '$1' (in container '')");
}

/** Formats a cel-js error like cel-go's `ERROR: <input>:1:7: message`. */
function celErrorText(text: string, err: unknown): string {
  const e = err as Located;
  const summary = celGoWording((typeof e.summary === 'string' && e.summary) || String(e.message ?? err).split('\n')[0]);
  const at = typeof e.range?.start === 'number' ? e.range.start : 0;
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const col = at - (before.lastIndexOf('\n') + 1) + 1;
  return `ERROR: <input>:${line}:${col}: ${summary}`;
}

/** True when the expression refers to the variable `oldSelf`. */
function referencesOldSelf(ast: unknown, depth = 0): boolean {
  if (depth > 500 || ast === null || typeof ast !== 'object') return false;
  if (Array.isArray(ast)) return ast.some((a) => referencesOldSelf(a, depth + 1));
  const node = ast as { op?: unknown; args?: unknown };
  if (node.op === 'id' && node.args === 'oldSelf') return true;
  return referencesOldSelf(node.args, depth + 1);
}

/**
 * Compiles the rules of one schema node. checkEnv, when given, declares `self` (and
 * `oldSelf`) with the node's static type and is used to type-check the expressions.
 */
export function compileRules(rules: readonly ValidationRule[], checkEnvs: { plain: Environment; optional: Environment } | undefined): CompiledRule[] {
  return rules.map((rule, index) => {
    const optionalOldSelf = rule.optionalOldSelf === true;
    const text = typeof rule.rule === 'string' ? rule.rule : '';
    let program: ParseResult | undefined;
    let ruleError: string | undefined;
    let usesOldSelf = false;
    if (text.trim() === '') ruleError = 'rule is not specified';
    else {
      const parsed = parseCached(text, optionalOldSelf);
      if (parsed instanceof Error) ruleError = `compilation failed: ${celErrorText(text, parsed)}`;
      else {
        program = parsed;
        usesOldSelf = referencesOldSelf(parsed.ast);
        const checkEnv = checkEnvs && (optionalOldSelf ? checkEnvs.optional : checkEnvs.plain);
        const checked = safeCheck(checkEnv ?? (optionalOldSelf ? optionalEnv : plainEnv), text);
        if (!checked.valid) ruleError = `compilation failed: ${celErrorText(text, checked.error)}`;
        else if (checked.type !== 'bool' && checked.type !== 'dyn') ruleError = 'compilation failed: cel expression must evaluate to a bool';
      }
    }
    let messageProgram: ParseResult | undefined;
    let messageError: string | undefined;
    const mx = typeof rule.messageExpression === 'string' ? rule.messageExpression : '';
    if (mx.trim() !== '') {
      const parsed = parseCached(mx, optionalOldSelf);
      if (parsed instanceof Error) messageError = `messageExpression compilation failed: ${celErrorText(mx, parsed)}`;
      else {
        messageProgram = parsed;
        const checkEnv = checkEnvs && (optionalOldSelf ? checkEnvs.optional : checkEnvs.plain);
        const checked = safeCheck(checkEnv ?? (optionalOldSelf ? optionalEnv : plainEnv), mx);
        if (!checked.valid) messageError = `messageExpression compilation failed: ${celErrorText(mx, checked.error)}`;
        else if (checked.type !== 'string' && checked.type !== 'dyn') messageError = 'messageExpression must evaluate to a string';
      }
    }
    return { rule, index, program, messageProgram, usesOldSelf, optionalOldSelf, ruleError, messageError };
  });
}

function safeCheck(env: Environment, text: string): { valid: boolean; type?: string; error?: unknown } {
  try {
    return env.check(text);
  } catch (err) {
    return { valid: false, error: err };
  }
}

/** The environments that type-check rules of a node whose `self` has type selfType. */
export function checkEnvironments(base: Environment, selfType: string): { plain: Environment; optional: Environment } | undefined {
  try {
    return {
      plain: base.clone().registerVariable('self', selfType).registerVariable('oldSelf', selfType),
      optional: base.clone().registerVariable('self', selfType).registerVariable('oldSelf', `optional<${selfType}>`),
    };
  } catch {
    return undefined;
  }
}

/** What a rule evaluation needs besides the rule: converted values and where to report. */
export interface RuleInput {
  readonly self: unknown;
  /** The old value, when the node existed before (updates only). */
  readonly oldSelf: unknown;
  readonly hasOld: boolean;
  /** The field path of the node. */
  readonly path: string;
  /** The field path failures are reported at (path plus the rule's fieldPath). */
  readonly failurePath: string;
  /** The node's declared type, quoted in messages like Kubernetes does (`Invalid value: "object"`). */
  readonly schemaType: string;
  /** The most the evaluation may cost at runtime (default PER_CALL_LIMIT, Kubernetes' per-call limit). */
  readonly costLimit?: number;
  /**
   * What remains of the per-object budget (Kubernetes' RuntimeCELCostBudget), shared by all
   * rule evaluations of one object; each evaluation's cost (and its messageExpression's) is
   * spent from it. Without it only the per-call limit applies.
   */
  readonly budget?: CostBudget;
}

/** Kubernetes' detail when the rules of one object together cost more than the per-object budget. */
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';
const MESSAGE_OUT_OF_BUDGET = 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run';

function lowerFirst(s: string): string {
  return s.length > 0 ? s[0].toLowerCase() + s.slice(1) : s;
}

function ruleErrorString(rule: ValidationRule): string {
  const msg = typeof rule.message === 'string' ? rule.message.trim() : '';
  return msg || String(rule.rule).trim();
}

function quote(s: string): string {
  return JSON.stringify(s);
}

function failureCause(rule: ValidationRule, field: string, schemaType: string, detail: string): StatusCause {
  const at = field ? { field } : {};
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return { reason: 'FieldValueForbidden', message: detail ? `Forbidden: ${detail}` : 'Forbidden', ...at };
    case 'FieldValueRequired':
      return { reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value', ...at };
    case 'FieldValueDuplicate':
      return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${quote(schemaType)}`, ...at };
    default:
      return { reason: 'FieldValueInvalid', message: `Invalid value: ${quote(schemaType)}: ${detail}`, ...at };
  }
}

/**
 * Evaluates one compiled rule. Returns undefined when it passes or does not apply (a
 * transition rule without an old value), else the cause.
 */
export function evaluateRule(cr: CompiledRule, input: RuleInput): StatusCause | undefined {
  if (!cr.program) return undefined;
  if (cr.usesOldSelf && !input.hasOld && !cr.optionalOldSelf) return undefined;
  const ctx: Record<string, unknown> = { self: input.self };
  if (cr.optionalOldSelf) ctx.oldSelf = input.hasOld ? Optional.of(input.oldSelf) : Optional.none();
  else if (input.hasOld) ctx.oldSelf = input.oldSelf;
  const program = cr.program;
  const meter = new RuntimeCostMeter(input.costLimit ?? PER_CALL_LIMIT);
  const outcome = metered(meter, program, ctx);
  if (meter.exceeded) {
    input.budget?.spend(meter.cost);
    // Kubernetes stops the evaluation at its per-call limit and reports it at the node's path.
    return {
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${quote(input.schemaType)}: call cost exceeds limit for rule: ${ruleErrorString(cr.rule)}`,
      ...(input.path ? { field: input.path } : {}),
    };
  }
  if (input.budget && !input.budget.spend(meter.cost)) {
    // The rule fitted its per-call limit but not what remains of the object's budget: Kubernetes
    // reports it at the node's path and runs no further rule on the object.
    return {
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${quote(input.schemaType)}: ${OUT_OF_BUDGET}`,
      ...(input.path ? { field: input.path } : {}),
    };
  }
  let result: unknown;
  if ('value' in outcome) result = outcome.value;
  else {
    const err = outcome.error;
    const text = lowerFirst((err instanceof Error ? err.message : String(err)).split('\n')[0]);
    const field = input.path ? { field: input.path } : {};
    if (/overload/i.test(text)) {
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${quote(input.schemaType)}: '${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(cr.rule)}`,
        ...field,
      };
    }
    return {
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${quote(input.schemaType)}: ${text} evaluating rule: ${ruleErrorString(cr.rule)}`,
      ...field,
    };
  }
  if (result === true) return undefined;
  const message = failureMessage(cr, ctx, input.budget);
  if (message === undefined) {
    const field = input.failurePath ? { field: input.failurePath } : {};
    return { reason: 'FieldValueInvalid', message: `Invalid value: ${quote(input.schemaType)}: ${MESSAGE_OUT_OF_BUDGET}`, ...field };
  }
  return failureCause(cr.rule, input.failurePath, input.schemaType, message);
}

/** The failure's detail; undefined when the messageExpression's cost did not fit what remains of the object's budget. */
function failureMessage(cr: CompiledRule, ctx: Record<string, unknown>, budget: CostBudget | undefined): string | undefined {
  const messageProgram = cr.messageProgram;
  if (messageProgram) {
    // Metered like the rule; over the limit or failing, the static message is used, as Kubernetes does.
    const meter = new RuntimeCostMeter(PER_CALL_LIMIT);
    const outcome = metered(meter, messageProgram, ctx);
    if (budget && !meter.exceeded && !budget.spend(meter.cost)) return undefined;
    const m = 'value' in outcome ? outcome.value : undefined;
    if (typeof m === 'string' && m.trim() !== '' && !/[\r\n]/.test(m) && m.length <= 5120) return m.trim();
  }
  const msg = typeof cr.rule.message === 'string' ? cr.rule.message.trim() : '';
  return msg || `failed rule: ${String(cr.rule.rule).trim()}`;
}
