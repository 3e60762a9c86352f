/**
 * setupAuthorization builds RBAC for the API server: the index, the authorizer, the
 * escalation check (an admission plugin), and `start`, which reconciles the bootstrap
 * policy, keeps its roles in step with the installed CRDs, and starts the informers that
 * keep the index current.
 */
import type { Client, Logger } from '../../client/index.js';
import type { AdmissionAttributes } from '../admission/types.js';
import { NO_CRD_KINDS, type CrdKinds, type PolicyResources } from './bootstrap-policy.js';
import { startPolicySync, type PolicySync } from './policy-sync.js';
import { RbacEscalationCheck } from './escalation.js';
import { SecretReferenceCheck } from './secret-references.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import { RbacIndex } from './rbac-index.js';
import { startRbacInformers, type RbacInformers } from './rbac-informers.js';

/** AuthorizationSetup is what the server wires in. */
export interface AuthorizationSetup {
  index: RbacIndex;
  authorizer: RbacAuthorizer;
  escalation: RbacEscalationCheck;
  /** Admission: Secret references only to Secrets the writer may use themselves. */
  secretReferences: SecretReferenceCheck;
  /**
   * Reconciles the bootstrap policy through `client` (which must be in system:masters) for
   * the kinds' resources plus those of the installed claim and concrete CRDs, then starts the
   * informers; resolves once the index holds every stored RBAC object. From then on, a CRD
   * of a claim or concrete kind created, changed or deleted brings the roles in step at once.
   */
  start(client: Client, opts?: { logger?: Logger; signal?: AbortSignal }): Promise<void>;
  stop(): void;
}

/**
 * What RBAC knows of claim and concrete kinds. The API server knows nothing of claims: this
 * comes from whoever assembles it (Conductor's composition root, `src/conductor`).
 */
export interface RbacKinds {
  /** The claim and concrete resources the built-in roles always name (the catalog's kinds). */
  resources: PolicyResources;
  /** Which installed CRDs define claim or concrete kinds; followed while the server runs. */
  crds: CrdKinds;
  /** Which served types are claim kinds, for the Secret-reference check (claim kinds known by their label only). */
  isClaim?: (rt: AdmissionAttributes['rt']) => Promise<boolean>;
}

/** RBAC without claim or concrete kinds: the built-in roles name none. */
export const NO_RBAC_KINDS: RbacKinds = { resources: { claimResources: [], concreteResources: [] }, crds: NO_CRD_KINDS };

/** setupAuthorization assembles RBAC for `kinds`; nothing runs until `start`. */
export function setupAuthorization(kinds: RbacKinds = NO_RBAC_KINDS): AuthorizationSetup {
  const index = new RbacIndex();
  const authorizer = new RbacAuthorizer(index);
  const escalation = new RbacEscalationCheck(index, authorizer);
  const secretReferences = new SecretReferenceCheck(authorizer, kinds.isClaim);
  let informers: RbacInformers | undefined;
  let sync: PolicySync | undefined;
  let stopped = false;
  return {
    index,
    authorizer,
    escalation,
    secretReferences,
    async start(client, opts = {}) {
      const startedSync = await startPolicySync(client, kinds.resources, kinds.crds, opts);
      if (stopped) {
        startedSync.stop();
        return;
      }
      sync = startedSync;
      const started = await startRbacInformers(client, index, opts);
      if (stopped) started.stop();
      else informers = started;
    },
    stop() {
      stopped = true;
      sync?.stop();
      informers?.stop();
    },
  };
}
