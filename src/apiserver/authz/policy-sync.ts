/**
 * Keeps the bootstrap policy's roles in step with the installed CRDs while the server runs:
 * an informer on CustomResourceDefinitions; whenever the set of claim or concrete kinds
 * changes (a CRD created, relabelled, recategorised or deleted), the roles whose rules name
 * those kinds (the ones carrying POLICY_KINDS_ANNOTATION) are reconciled at once, so a new
 * abstract kind is usable by developers without a restart and a deleted kind's rules go.
 */
import { builtinRefs, dropUnreadFields, errorMessage, Informer, type Client, type Logger } from '../../client/index.js';
import type { KObject } from '../../machinery/object.js';
import {
  bootstrapPolicy,
  kindsAnnotation,
  POLICY_KINDS_ANNOTATION,
  policyResourcesOf,
  reconcileBootstrapPolicy,
  type CrdKinds,
  type PolicyResources,
} from './bootstrap-policy.js';

/** A running PolicySync. */
export interface PolicySync {
  stop(): void;
}

const RETRY_INITIAL_MS = 200;
const RETRY_MAX_MS = 30_000;

/**
 * Lists the CRDs, reconciles the whole bootstrap policy for `fixed` (the catalog's kinds)
 * plus the claim and concrete kinds among them, then follows CRD changes. Resolves once the
 * first reconcile is stored; rejects if it fails (the server must not serve without its roles).
 */
export async function startPolicySync(
  client: Client,
  fixed: PolicyResources,
  kinds: CrdKinds,
  opts: { logger?: Logger; signal?: AbortSignal } = {},
): Promise<PolicySync> {
  const log = opts.logger;
  const crds = new Informer<KObject>(client, builtinRefs.customresourcedefinitions, {
    logger: log,
    readOnlyObjects: true,
    transform: dropUnreadFields,
  }).start();
  if (!(await crds.waitForSync(opts.signal))) {
    crds.stop();
    throw new Error('cannot reconcile the bootstrap RBAC policy: the CRD informer stopped before listing every CRD');
  }
  const current = (): PolicyResources => {
    const found = policyResourcesOf(crds.store.list(), kinds);
    return {
      claimResources: [...fixed.claimResources, ...found.claimResources],
      concreteResources: [...fixed.concreteResources, ...found.concreteResources],
    };
  };

  const first = current();
  try {
    await reconcileBootstrapPolicy(client, bootstrapPolicy(first), { logger: log });
  } catch (err) {
    crds.stop();
    throw err;
  }
  // What the kind-dependent roles were last reconciled for; a CRD change that leaves the
  // kinds as they are (its status, a printer column) costs nothing more.
  let done = kindsAnnotation(first);
  let stopped = false;
  let running = false;
  let again = false;
  let retryMs = RETRY_INITIAL_MS;
  let retryTimer: NodeJS.Timeout | undefined;

  const retryLater = (): void => {
    clearTimeout(retryTimer);
    if (stopped) return;
    retryTimer = setTimeout(kick, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };
  const once = async (): Promise<void> => {
    const kinds = current();
    const key = kindsAnnotation(kinds);
    if (key === done) return;
    try {
      const conflicts = await reconcileBootstrapPolicy(client, bootstrapPolicy(kinds), {
        logger: log,
        // Only the roles whose rules name kinds; objects an administrator deleted stay deleted until the next start.
        only: (o) => o.metadata.annotations?.[POLICY_KINDS_ANNOTATION] !== undefined,
        createMissing: false,
      });
      if (conflicts > 0) {
        // Someone else wrote a role meanwhile: reconcile again against what they stored.
        retryLater();
        return;
      }
      done = key;
      retryMs = RETRY_INITIAL_MS;
    } catch (err) {
      if (stopped) return;
      log?.error({ err: errorMessage(err) }, 'cannot bring the bootstrap RBAC roles in step with the installed CRDs; retrying');
      retryLater();
    }
  };
  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      try {
        do {
          again = false;
          await once();
        } while (again && !stopped);
      } finally {
        running = false;
      }
    })();
  }
  crds.addHandler({ onAdd: kick, onUpdate: kick, onDelete: kick });
  return {
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      crds.stop();
    },
  };
}
