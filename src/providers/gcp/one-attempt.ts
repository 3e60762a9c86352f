/**
 * One attempt per call for every google-gax client (Pub/Sub, Spanner, Cloud SQL Admin,
 * Memorystore): the managed reconciler retries with its own backoff (or the cloud's
 * Retry-After) and bounds each call with its deadline, so a retry hidden inside the SDK would
 * only spend that deadline and hide a throttling answer's wait.
 *
 * A gax client merges `clientConfig` over its own per-method retry settings: for each method
 * of its service it looks the method up in `interfaces[<service>].methods` and, when found,
 * takes the retry codes its `retry_codes_name` names in that interface's `retry_codes`. An
 * empty list of codes makes the call once. The services and methods differ per client and
 * per version, so this config answers for any service and any method (the lookups are the
 * only reads gax makes of it), rather than listing names that would go stale.
 */
import type { ClientConfig } from 'google-gax';

const NO_RETRY_CODES = 'conductor_one_attempt';

/** The override of one method: retry on none of the codes. */
const oneAttemptMethod = Object.freeze({ retry_codes_name: NO_RETRY_CODES });

/** Every method of a service is overridden, whatever its name. */
const everyMethod: Record<string, typeof oneAttemptMethod> = new Proxy(
  {},
  {
    has: () => true,
    get: (_target, name) => (typeof name === 'string' ? oneAttemptMethod : undefined),
  },
);

const oneAttemptInterface = Object.freeze({ retry_codes: Object.freeze({ [NO_RETRY_CODES]: Object.freeze([]) }), methods: everyMethod });

/** ONE_ATTEMPT is the `clientConfig` option that makes every call of a gax client one attempt. */
export const ONE_ATTEMPT = {
  interfaces: new Proxy(
    {},
    {
      has: () => true,
      get: (_target, name) => (typeof name === 'string' ? oneAttemptInterface : undefined),
    },
  ),
} as unknown as ClientConfig;

/**
 * ONE_ATTEMPT_OPTIONS is `{ clientConfig: ONE_ATTEMPT }` for the handwritten clients whose option
 * types do not declare `clientConfig` but hand their options to their gax clients unchanged
 * (`PubSub`'s ClientConfig, `SpannerOptions`): typed as a bare object so it spreads into them.
 * `clients.test.ts` shows it reaches them (one request per call).
 */
export const ONE_ATTEMPT_OPTIONS: object = { clientConfig: ONE_ATTEMPT };
