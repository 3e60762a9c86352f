/**
 * PlanAnnotation: a server-side dry run of a claim (`kubectl apply --dry-run=server`,
 * `conductor plan`) answers with the scheduler's decision in the annotation
 * `conductor.io/plan` (JSON, see ClaimPlan): the resource it would be bound to, or the class it
 * would be provisioned from, or none, with the explanation and the chosen candidate's cost
 * tier. Nothing is reserved or written: the scheduler is asked as the binder would ask it.
 * Real writes are not touched.
 */
import type { AdmissionAttributes, MutatingPlugin } from '../../apiserver/admission/types.js';
import type { Claim } from '../../apis/index.js';
import { formatPrice, type ScheduleResult } from '../../scheduler/index.js';
import type { ClaimTypeIndex } from './claim-types.js';

export const PLAN_ANNOTATION = 'conductor.io/plan';

/** What the annotation holds. */
export interface ClaimPlan {
  /** resource: bound to an existing resource; class: provisioned from a class; none: stays Pending. */
  decision: 'resource' | 'class' | 'none';
  /** The resource (`Kind`) or the class (`ResourceClass`) chosen, and what a class provisions. */
  kind?: string;
  namespace?: string;
  name?: string;
  provisions?: string;
  /** The chosen candidate's cost tier, when it states one. */
  cost?: string;
  /** The chosen candidate's monthly price for this claim (`0.25 USD`), when it has one; the message lists the others compared. */
  monthlyPrice?: string;
  /** The scheduler's explanation (the claim's Scheduled condition would say this). */
  message: string;
  hints?: readonly string[];
  scores?: readonly { plugin: string; score: number; weight: number }[];
}

/** planOf turns a scheduling result into the annotation's content. */
export function planOf(result: ScheduleResult): ClaimPlan {
  const { decision, explanation } = result;
  const chosen = explanation.prices?.[0];
  const common = {
    ...(chosen?.chosen === true && chosen.price.amount !== undefined ? { monthlyPrice: formatPrice(chosen.price) } : {}),
    message: explanation.message,
    ...(explanation.hints?.length ? { hints: explanation.hints } : {}),
    ...(explanation.scores?.length ? { scores: explanation.scores.map((s) => ({ plugin: s.plugin, score: s.score, weight: s.weight })) } : {}),
  };
  switch (decision.type) {
    case 'resource': {
      const c = decision.candidate;
      return {
        decision: 'resource',
        kind: c.kind.kind,
        namespace: c.namespace,
        name: c.name,
        ...(c.capabilities.cost ? { cost: c.capabilities.cost } : {}),
        ...common,
      };
    }
    case 'class': {
      const c = decision.candidate;
      return {
        decision: 'class',
        kind: 'ResourceClass',
        namespace: c.namespace,
        name: c.name,
        provisions: c.templateKind.kind,
        ...(c.capabilities.cost ? { cost: c.capabilities.cost } : {}),
        ...common,
      };
    }
    case 'none':
      return { decision: 'none', ...common };
    default: {
      const never: never = decision;
      return never;
    }
  }
}

/** The planner: the running claim controller's, while it runs in this server. */
export type Planner = () => ((claim: Claim) => Promise<ScheduleResult>) | undefined;

export class PlanAnnotation implements MutatingPlugin {
  readonly name = 'PlanAnnotation';

  constructor(
    private readonly claimTypes: ClaimTypeIndex,
    private readonly planner: Planner,
  ) {}

  handles(attrs: AdmissionAttributes): boolean {
    return attrs.dryRun && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE') && attrs.subresource === '' && attrs.object !== undefined;
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const obj = attrs.object;
    if (!obj || !(await this.claimTypes.isClaim(attrs.rt))) return;
    const plan = this.planner();
    if (!plan) {
      attrs.ctx.warnings.push('no plan: the claim controllers do not run in this server (yet), so the dry run cannot say where the claim would go');
      return;
    }
    const result = await plan(obj as Claim);
    obj.metadata.annotations = { ...obj.metadata.annotations, [PLAN_ANNOTATION]: JSON.stringify(planOf(result)) };
  }
}
