/**
 * setupAuthorization builds RBAC for the API server: the index, the authorizer, the
 * escalation check (an admission plugin), and `start`, which reconciles the bootstrap
 * policy, keeps its roles in step with the installed CRDs, and starts the informers that
 * keep the index current.
 */
import type { Client, Logger } from '../../client/index.js';
import type { AdmissionAttributes } from '../admission/types.js';
import type { PolicyResources } from './bootstrap-policy.js';
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
   * the given resources plus those of the installed claim and managed CRDs, then starts the
   * informers; resolves once the index holds every stored RBAC object. From then on, a CRD
   * of a claim or concrete kind created, changed or deleted brings the roles in step at once.
   */
  start(client: Client, kinds: PolicyResources, opts?: { logger?: Logger; signal?: AbortSignal }): Promise<void>;
  stop(): void;
}

/**
 * setupAuthorization assembles RBAC; nothing runs until `start`. `isClaim` tells claim kinds
 * known by their label only (the server's ClaimTypeIndex), for the Secret-reference check.
 */
export function setupAuthorization(opts: { isClaim?: (rt: AdmissionAttributes['rt']) => Promise<boolean> } = {}): AuthorizationSetup {
  const index = new RbacIndex();
  const authorizer = new RbacAuthorizer(index);
  const escalation = new RbacEscalationCheck(index, authorizer);
  const secretReferences = new SecretReferenceCheck(authorizer, opts.isClaim);
  let informers: RbacInformers | undefined;
  let sync: PolicySync | undefined;
  let stopped = false;
  return {
    index,
    authorizer,
    escalation,
    secretReferences,
    async start(client, kinds, opts = {}) {
      const startedSync = await startPolicySync(client, kinds, opts);
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
