/**
 * Whether one Provider object can work: its type is installed in this Conductor, its
 * credentials Secret (when it names one) exists, and every installed module of its type
 * passes its `check` (credentials authenticate, the programs its kinds run are there).
 */
import { errorMessage } from '../../client/logger.js';
import { PROVIDER_TYPES } from '../../apis/core/kinds.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject, type JsonObject } from '../../machinery/object.js';
import { boundedRetryAfter, retryAfterSecondsOf, retryingIn, type ProviderCheck, type ProviderModule } from '../../providers/spi.js';
import { withDeadline, type DeadlineOptions } from '../managed/call-deadline.js';
import { Redactor } from '../managed/secret-redaction.js';

/** The reasons of a Provider's Ready condition. */
export const providerReasons = {
  checkPassed: 'CheckPassed',
  typeNotInstalled: 'TypeNotInstalled',
  invalidSpec: 'InvalidSpec',
  credentialsNotFound: 'CredentialsNotFound',
  cannotReadCredentials: 'CannotReadCredentials',
  checkFailed: 'CheckFailed',
  /** The cloud throttled the check and said when to come back (Retry-After): checked again then. */
  throttled: 'Throttled',
} as const;

/** What `credentials` found: the decoded Secret, none named, or why it could not be read. */
export type CredentialsLookup =
  | { kind: 'none' }
  | { kind: 'found'; data: Record<string, string> }
  | { kind: 'missing'; secret: string }
  | { kind: 'unreadable'; secret: string; error: string };

/** providerType reads `spec.type`, or undefined when it is not a string. */
export function providerType(provider: KObject): string | undefined {
  const spec = isPlainObject(provider.spec) ? provider.spec : {};
  return typeof spec.type === 'string' && spec.type !== '' ? spec.type : undefined;
}

/**
 * providerReadiness decides the Ready condition of `provider` from the modules installed in
 * this process and its credentials. Each module's check runs with `deadlines` (a check that
 * hangs is cancelled and reported).
 */
export async function providerReadiness(
  provider: KObject,
  modules: readonly ProviderModule[],
  credentials: CredentialsLookup,
  deadlines: DeadlineOptions,
): Promise<ProviderCheck> {
  const verdict = await decide(provider, modules, credentials, deadlines);
  if (credentials.kind !== 'found') return verdict;
  // A check's message goes to status: it never quotes a credential.
  const redactor = new Redactor(Object.values(credentials.data));
  return verdict.ready
    ? {
        ready: true,
        ...(verdict.message !== undefined ? { message: redactor.redact(verdict.message) } : {}),
        ...(verdict.atProvider !== undefined ? { atProvider: verdict.atProvider } : {}),
      }
    : { ...verdict, message: redactor.redact(verdict.message) };
}

async function decide(
  provider: KObject,
  modules: readonly ProviderModule[],
  credentials: CredentialsLookup,
  deadlines: DeadlineOptions,
): Promise<ProviderCheck> {
  const type = providerType(provider);
  if (type === undefined)
    return { ready: false, reason: providerReasons.invalidSpec, message: `spec.type is missing: want one of ${PROVIDER_TYPES.join(', ')}` };
  const ofType = modules.filter((m) => m.type === type);
  if (ofType.length === 0) {
    const installed = [...new Set(modules.map((m) => m.type))].sort().join(', ') || 'none';
    return {
      ready: false,
      reason: providerReasons.typeNotInstalled,
      message: `no provider of type "${type}" is installed in this Conductor (installed types: ${installed}); resources naming this Provider cannot be reconciled`,
    };
  }
  if (credentials.kind === 'missing') {
    return {
      ready: false,
      reason: providerReasons.credentialsNotFound,
      message: `the credentials Secret ${credentials.secret} named by spec.credentialsSecretRef does not exist`,
    };
  }
  if (credentials.kind === 'unreadable') {
    return {
      ready: false,
      reason: providerReasons.cannotReadCredentials,
      message: `cannot read the credentials Secret ${credentials.secret}: ${credentials.error}`,
    };
  }
  const found: string[] = [];
  let atProvider: JsonObject | undefined;
  for (const module of ofType) {
    if (!module.check) continue;
    let verdict: ProviderCheck;
    try {
      verdict = await withDeadline({ op: 'check', kind: 'Provider', resource: provider }, deadlines, (signal) =>
        module.check!(provider, { ...(credentials.kind === 'found' ? { credentials: credentials.data } : {}), signal }),
      );
    } catch (err) {
      const wait = retryAfterSecondsOf(err);
      if (wait !== undefined)
        return throttled({
          ready: false,
          reason: providerReasons.throttled,
          message: `the ${type} provider's check was throttled: ${errorMessage(err)}`,
          retryAfterSeconds: wait,
        });
      return { ready: false, reason: providerReasons.checkFailed, message: `the ${type} provider's check failed: ${errorMessage(err)}` };
    }
    if (!verdict.ready) return throttled(verdict);
    if (verdict.message) found.push(verdict.message);
    if (verdict.atProvider) atProvider = { ...atProvider, ...verdict.atProvider };
  }
  return {
    ready: true,
    message: found.length > 0 ? found.join('; ') : `the ${type} provider is installed and needs nothing more`,
    ...(atProvider ? { atProvider } : {}),
  };
}

/**
 * throttled makes a not-ready verdict that carries the cloud's Retry-After a `Throttled` one:
 * the wait bounded (1 s to 5 min) and said in the message ("retrying in 30s"), so the
 * Provider's condition tells when it is checked again. Other verdicts pass unchanged.
 */
function throttled(verdict: ProviderCheck): ProviderCheck {
  if (verdict.ready) return verdict;
  const wait = boundedRetryAfter(verdict.retryAfterSeconds);
  if (wait === undefined) return { ready: false, reason: verdict.reason, message: verdict.message };
  const said = retryingIn(wait);
  return {
    ready: false,
    reason: providerReasons.throttled,
    message: verdict.message.includes(said) ? verdict.message : `${verdict.message}; ${said} (the cloud's Retry-After)`,
    retryAfterSeconds: wait,
  };
}
