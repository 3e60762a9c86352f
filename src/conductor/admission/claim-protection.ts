/**
 * ClaimProtectionAdmission adds the claim-protection finalizer to every claim as it is
 * created, so a claim can never be deleted before the claim controller has released what it
 * is bound to — and the controller does not spend a write per claim adding it (it still adds
 * it to claims that arrive without it, e.g. through another API server).
 */
import { CLAIM_PROTECTION_FINALIZER } from '../../apis/index.js';
import type { ClaimTypeIndex } from './claim-types.js';
import type { AdmissionAttributes, MutatingPlugin } from '../../apiserver/admission/types.js';

export class ClaimProtectionAdmission implements MutatingPlugin {
  readonly name = 'ClaimProtection';

  constructor(private readonly claimKinds: ClaimTypeIndex) {}

  handles(attrs: AdmissionAttributes): boolean {
    return attrs.operation === 'CREATE' && attrs.subresource === '' && attrs.rt.namespaced && attrs.rt.source.type === 'crd' && attrs.object !== undefined;
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!(await this.claimKinds.isClaim(attrs.rt))) return;
    const meta = attrs.object!.metadata;
    const finalizers = meta.finalizers ?? [];
    if (!finalizers.includes(CLAIM_PROTECTION_FINALIZER)) meta.finalizers = [...finalizers, CLAIM_PROTECTION_FINALIZER];
  }
}
