/**
 * setupAuthorization builds RBAC for the API server: the index, the authorizer, the
 * escalation check (an admission plugin), and `start`, which reconciles the bootstrap
 * policy and starts the informers that keep the index current.
 */
import type { Client, Logger } from '../../client/index.js';
import { bootstrapPolicy, policyResourcesFromCrds, reconcileBootstrapPolicy, type PolicyResources } from './bootstrap-policy.js';
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
   * informers; resolves once the index holds every stored RBAC object.
   */
  start(client: Client, kinds: PolicyResources, opts?: { logger?: Logger; signal?: AbortSignal }): Promise<void>;
  stop(): void;
}

/** setupAuthorization assembles RBAC; nothing runs until `start`. */
export function setupAuthorization(): AuthorizationSetup {
  const index = new RbacIndex();
  const authorizer = new RbacAuthorizer(index);
  const escalation = new RbacEscalationCheck(index, authorizer);
  const secretReferences = new SecretReferenceCheck(authorizer);
  let informers: RbacInformers | undefined;
  let stopped = false;
  return {
    index,
    authorizer,
    escalation,
    secretReferences,
    async start(client, kinds, opts = {}) {
      const fromCrds = await policyResourcesFromCrds(client);
      const policy = bootstrapPolicy({
        claimResources: [...kinds.claimResources, ...fromCrds.claimResources],
        concreteResources: [...kinds.concreteResources, ...fromCrds.concreteResources],
      });
      await reconcileBootstrapPolicy(client, policy, opts.logger);
      const started = await startRbacInformers(client, index, opts);
      if (stopped) started.stop();
      else informers = started;
    },
    stop() {
      stopped = true;
      informers?.stop();
    },
  };
}
