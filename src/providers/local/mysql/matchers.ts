/**
 * Matchers and configurators of the two MySQL kinds for MySQLInstance claims: whether a
 * server (or a class that would create one) can honour a claim's portable fields — version
 * range (see version.ts for how MariaDB compares), user name, database name — and how a
 * class template becomes a dedicated instance's spec.
 */
import { deepCopy, type JsonObject, type KObject } from '../../../machinery/object.js';
import { doesNotFit, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../../spi.js';
import { claimSpec, defaultAppDatabase, defaultAppUser, type LocalMySQLInstance, type MySQLServer } from './kinds.js';
import { databaseNameProblem, userNameProblem } from './names.js';
import { versionMismatch } from './version.js';
import { capabilitiesWithRequirements } from '../../requirements.js';
import { atProviderString, specString, versionVerdict } from '../match-helpers.js';

const versionResult = (wanted: string | undefined, offered: string | undefined, exact: boolean) => versionVerdict(versionMismatch, wanted, offered, exact);

/**
 * matchSharedServer judges a claim against a MySQLServer. A shared server names each
 * claim's database and user itself, so a claim that insists on either cannot be honoured
 * there; classes cannot create shared servers.
 */
export function matchSharedServer(claim: KObject, candidate: MatchCandidate<MySQLServer>): MatchResult {
  if (candidate.type === 'class') return doesNotFit('MySQLServer registers an existing server; a class cannot provision one');
  const wanted = claimSpec(claim);
  if (wanted.masterUsername) {
    return doesNotFit(`a shared server names each claim's user itself; masterUsername "${wanted.masterUsername}" cannot be honoured`);
  }
  if (wanted.databaseName) {
    return doesNotFit(`a shared server names each claim's database itself; databaseName "${wanted.databaseName}" cannot be honoured`);
  }
  const observed = atProviderString(candidate.resource, 'version');
  if (observed) return versionResult(wanted.version, observed, true);
  return versionResult(wanted.version, specString(candidate.resource.spec, 'version'), false);
}

/** configureSharedServer refuses: shared servers are registered, never provisioned. */
export function configureSharedServer(): JsonObject {
  throw new Error('MySQLServer cannot be provisioned from a class: it registers an existing server');
}

/**
 * localInstanceMatcher judges a claim against a LocalMySQLInstance or a class that creates
 * one. `binaryVersion` is the version of this machine's mariadbd (undefined when none was
 * found): every dedicated instance runs it.
 */
export function localInstanceMatcher(binaryVersion: string | undefined) {
  return function matchLocalInstance(claim: KObject, candidate: MatchCandidate<LocalMySQLInstance>): MatchResult {
    const wanted = claimSpec(claim);
    const nameProblem =
      (wanted.masterUsername ? userNameProblem(wanted.masterUsername) : undefined) ??
      (wanted.databaseName ? databaseNameProblem(wanted.databaseName) : undefined);
    if (nameProblem) return doesNotFit(nameProblem);

    if (candidate.type === 'class') {
      if (!binaryVersion) return doesNotFit('no MariaDB server binaries on this machine');
      const pinned = specString(candidate.template.spec, 'version');
      if (pinned && versionMismatch(pinned, binaryVersion, true)) {
        return doesNotFit(`class pins version "${pinned}" but this machine runs ${binaryVersion}`);
      }
      return versionResult(wanted.version, binaryVersion, true);
    }

    const spec = candidate.resource.spec;
    const user = spec.masterUsername || defaultAppUser;
    if (wanted.masterUsername && wanted.masterUsername !== user) return doesNotFit(`instance user is "${user}", claim wants "${wanted.masterUsername}"`);
    const database = spec.databaseName || defaultAppDatabase;
    if (wanted.databaseName && wanted.databaseName !== database) {
      return doesNotFit(`instance database is "${database}", claim wants "${wanted.databaseName}"`);
    }
    return versionResult(wanted.version, atProviderString(candidate.resource, 'version') ?? binaryVersion, true);
  };
}

/**
 * configureLocalInstance builds a LocalMySQLInstance spec from a class template: the claim's
 * user and database names replace the template's; the claim's version range replaces the
 * template's unless the template's fits it; the claim's capacity requests replace the
 * template's, and its region and tiers fill in what the template leaves open.
 */
export function configureLocalInstance(claim: KObject, template: ResourceTemplate): JsonObject {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const wanted = claimSpec(claim);
  if (wanted.version) {
    const pinned = specString(spec, 'version');
    if (!pinned || versionMismatch(wanted.version, pinned, false)) spec.version = wanted.version;
  }
  if (wanted.masterUsername) spec.masterUsername = wanted.masterUsername;
  if (wanted.databaseName) spec.databaseName = wanted.databaseName;
  if (wanted.requirements) spec.capabilities = capabilitiesWithRequirements(spec.capabilities, wanted.requirements);
  return spec;
}
