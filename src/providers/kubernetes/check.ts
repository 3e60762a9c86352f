/**
 * The `kubernetes` provider's check of a Provider: its credentials Secret describes a target
 * (credentials.ts), the target's certificate verifies against the CA given, the credentials
 * authenticate and `/version` answers. Ready's message names the server and its version,
 * and its `atProvider` gives the version and what the credentials may do in the default
 * namespace (a SelfSubjectRulesReview summary: permissions.ts);
 * otherwise the reason says which step failed: InvalidCredentials, Unreachable,
 * UntrustedServerCertificate, Unauthorized (401), Forbidden (403) or RequestFailed.
 */
import type { KObject } from '../../machinery/object.js';
import type { ProviderCheck, ProviderCheckContext } from '../spi.js';
import { CredentialsError, targetClusterFrom } from './credentials.js';
import { permissionsOf, RULES_NAMESPACE } from './permissions.js';
import { TargetClient, TargetError } from './target-client.js';

/** checkTarget is the module's `check`: it opens a client of its own (closed after), so every check sees the Secret as it is now. */
export async function checkTarget(provider: KObject, context: ProviderCheckContext): Promise<ProviderCheck> {
  let client: TargetClient;
  try {
    client = new TargetClient(targetClusterFrom(context.credentials));
  } catch (err) {
    if (err instanceof CredentialsError) return { ready: false, reason: 'InvalidCredentials', message: err.message };
    throw err;
  }
  try {
    const version = await client.version(context.signal);
    const gitVersion = typeof version.gitVersion === 'string' ? version.gitVersion : `${String(version.major)}.${String(version.minor)}`;
    const permissions = await permissionsOf(client, RULES_NAMESPACE, context.signal);
    const serverVersion = { gitVersion, ...(typeof version.platform === 'string' ? { platform: version.platform } : {}) };
    return {
      ready: true,
      message: `${client.server} answers as Kubernetes ${gitVersion}, and the credentials authenticate`,
      atProvider: { serverVersion, permissions },
    };
  } catch (err) {
    if (err instanceof TargetError) return { ready: false, reason: err.reason, message: err.message };
    throw err;
  } finally {
    client.close();
  }
}
