/**
 * What `conductor plan` prints: one block per claim — the decision, the scheduler's
 * explanation (with the monthly prices compared), the cost tier and monthly price of what was chosen, and the spec fields that would change on an
 * existing claim — then a summary line.
 */
import { isPlainObject } from '../../machinery/object.js';

/** The server's plan for one claim (the `conductor.io/plan` annotation). */
export interface ClaimPlan {
  /** bound: an existing claim already bound (it stays with its resource; `plan` says so itself). */
  decision: 'resource' | 'class' | 'none' | 'bound';
  kind?: string;
  namespace?: string;
  name?: string;
  provisions?: string;
  cost?: string;
  monthlyPrice?: string;
  message: string;
  hints?: string[];
}

export interface FieldDiff {
  path: string;
  from?: unknown;
  to?: unknown;
}

export interface PlannedClaim {
  claim: string;
  existing?: boolean;
  plan?: ClaimPlan;
  changes?: FieldDiff[];
  skipped?: string;
  error?: string;
}

/** fieldDiffs lists the leaf fields that differ between two values, by dotted path. */
export function fieldDiffs(from: unknown, to: unknown, path = 'spec'): FieldDiff[] {
  if (isPlainObject(from) && isPlainObject(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
    return keys.flatMap((k) => fieldDiffs(from[k], to[k], `${path}.${k}`));
  }
  if (JSON.stringify(from) === JSON.stringify(to)) return [];
  return [{ path, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) }];
}

function decisionLine(p: ClaimPlan): string {
  const said = [...(p.cost ? [`cost ${p.cost}`] : []), ...(p.monthlyPrice ? [`${p.monthlyPrice}/month`] : [])];
  const cost = said.length > 0 ? ` (${said.join(', ')})` : '';
  switch (p.decision) {
    case 'resource':
      return `bind to ${p.kind} ${p.namespace}/${p.name}${cost}`;
    case 'class':
      return `provision a ${p.provisions} from ResourceClass ${p.namespace}/${p.name}${cost}`;
    case 'bound':
      return `stays bound to ${p.kind} ${p.namespace}/${p.name}`;
    case 'none':
      return 'cannot be placed: it would stay Pending';
  }
}

const show = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));

export function renderPlans(planned: readonly PlannedClaim[]): string {
  const lines: string[] = [];
  let placed = 0;
  let claims = 0;
  for (const p of planned) {
    if (p.skipped) {
      lines.push(`${p.claim}: skipped (${p.skipped})`);
      continue;
    }
    claims++;
    if (p.error) {
      lines.push(`${p.claim}: error: ${p.error}`);
      continue;
    }
    const plan = p.plan!;
    if (plan.decision !== 'none') placed++;
    lines.push(`${p.claim}${p.existing ? '' : ' (new)'}: ${decisionLine(plan)}`);
    if (plan.decision !== 'bound') lines.push(`  scheduler: ${plan.message}`);
    if (p.existing) {
      if (!p.changes?.length) lines.push('  changes: none');
      else for (const c of p.changes) lines.push(`  change: ${c.path}: ${show(c.from)} → ${show(c.to)}`);
    }
  }
  lines.push('', `${claims} claim${claims === 1 ? '' : 's'}: ${placed} can be placed, ${claims - placed} cannot`);
  return `${lines.join('\n')}\n`;
}
