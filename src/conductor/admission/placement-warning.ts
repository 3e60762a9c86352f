/**
 * PlacementWarning: a claim asking for a region or a profile that no class or resource of its
 * kind offers is accepted (the administrator may publish one next) but answered with a warning
 * (kubectl prints `Warning: …`) naming what is offered, so a typo such as `antartica` shows at
 * `kubectl apply` instead of only in the claim's Scheduled condition later.
 *
 * Asked on a create, and on an update that changes the region or the profile; a claim naming
 * neither costs nothing more. The answer comes from the in-memory PlacementIndex; while it is
 * not synced, or when the kind has no class or resource at all (the Scheduled condition says
 * so), nothing is said.
 */
import { isPlainObject, type KObject } from '../../machinery/object.js';
import type { AdmissionAttributes, ValidatingPlugin } from '../../apiserver/admission/types.js';
import { listNames } from '../../scheduler/fit-hints.js';
import type { ClaimTypeIndex } from './claim-types.js';
import type { PlacementIndex } from './placement-index.js';

/** The region and profile a claim asks for ('' when it names none). */
function asked(obj: KObject | undefined): { region: string; profile: string } {
  const spec = obj && isPlainObject(obj.spec) ? obj.spec : {};
  const req = isPlainObject(spec['requirements']) ? spec['requirements'] : {};
  const region = typeof req['region'] === 'string' ? req['region'].trim() : '';
  const profile = typeof spec['resourceClass'] === 'string' ? spec['resourceClass'] : '';
  return { region, profile };
}

/** The warning for a region no candidate of the kind serves. */
export function unknownRegionWarning(kind: string, region: string, served: Iterable<string>): string {
  const list = listNames(served);
  return list === ''
    ? `spec.requirements.region ${JSON.stringify(region)}: no class or resource of kind ${kind} states a region; the claim stays Pending unless you remove the region`
    : `spec.requirements.region ${JSON.stringify(region)}: no class or resource of kind ${kind} serves it; regions served: ${list}`;
}

/** The warning for a profile no candidate of the kind offers. */
export function unknownProfileWarning(kind: string, profile: string, offered: Iterable<string>): string {
  const list = listNames(offered);
  return list === ''
    ? `spec.resourceClass ${JSON.stringify(profile)}: no class or resource of kind ${kind} offers it, and none offers any profile; remove spec.resourceClass`
    : `spec.resourceClass ${JSON.stringify(profile)}: no class or resource of kind ${kind} offers it; profiles offered: ${list}`;
}

export class PlacementWarning implements ValidatingPlugin {
  readonly name = 'PlacementWarning';

  constructor(
    private readonly claimTypes: ClaimTypeIndex,
    private readonly index: PlacementIndex,
  ) {}

  handles(attrs: AdmissionAttributes): boolean {
    if (attrs.subresource !== '' || !isPlainObject(attrs.object)) return false;
    if (attrs.rt.source.type !== 'crd' || !attrs.rt.namespaced) return false;
    const now = asked(attrs.object);
    if (now.region === '' && now.profile === '') return false;
    if (attrs.operation === 'CREATE') return true;
    if (attrs.operation !== 'UPDATE') return false;
    const before = asked(attrs.oldObject);
    return before.region !== now.region || before.profile !== now.profile;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!(await this.claimTypes.isClaim(attrs.rt))) return;
    const offer = this.index.offerOf({ group: attrs.rt.group, kind: attrs.rt.kind, resource: attrs.rt.resource });
    if (!offer || offer.candidates === 0) return;
    const { region, profile } = asked(attrs.object);
    if (region !== '' && !this.index.serves(region, offer.regions.keys())) {
      attrs.ctx.warnings.push(unknownRegionWarning(attrs.rt.kind, region, offer.regions.values()));
    }
    if (profile !== '' && !offer.profiles.has(profile)) {
      attrs.ctx.warnings.push(unknownProfileWarning(attrs.rt.kind, profile, offer.profiles));
    }
  }
}
