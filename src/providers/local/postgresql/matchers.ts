/**
 * Matchers and configurators of the two PostgreSQL kinds for PostgreSQLInstance claims:
 * whether a server (or a class that would create one) can honour a claim's portable
 * fields — version range, user name, database name — and how a class template becomes a
 * dedicated instance's spec.
 */
import { deepCopy, type JsonObject, type KObject } from '../../../machinery/object.js';
import { doesNotFit, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../../spi.js';
import { claimSpec, defaultAppDatabase, defaultAppUser, type LocalPostgreSQLInstance, type PostgreSQLServer } from './kinds.js';
import { databaseNameProblem, roleNameProblem } from './names.js';
import { versionMismatch } from './version.js';
import { capabilitiesWithRequirements } from '../../requirements.js';
import { atProviderString, specString, versionVerdict } from '../match-helpers.js';

const versionResult = (wanted: string | undefined, offered: string | undefined, exact: boolean) => versionVerdict(versionMismatch, wanted, offered, exact);

/**
 * matchSharedServer judges a claim against a PostgreSQLServer. A shared server names each
 * claim's database and role itself (see names.ts), so a claim that insists on a user or
 * database name cannot be honoured there; classes cannot create shared servers.
 */
export function matchSharedServer(claim: KObject, candidate: MatchCandidate<PostgreSQLServer>): MatchResult {
  if (candidate.type === 'class') {
    return doesNotFit('PostgreSQLServer registers an existing server; a class cannot provision one');
  }
  const wanted = claimSpec(claim);
  if (wanted.masterUsername) {
    return doesNotFit(`a shared server names each claim's user itself; masterUsername "${wanted.masterUsername}" cannot be honoured`);
  }
  if (wanted.databaseName) {
    return doesNotFit(`a shared server names each claim's database itself; databaseName "${wanted.databaseName}" cannot be honoured`);
  }
  const resource = candidate.resource;
  const observed = atProviderString(resource, 'version');
  if (observed) return versionResult(wanted.version, observed, true);
  return versionResult(wanted.version, specString(resource.spec, 'version'), false);
}

/** configureSharedServer refuses: shared servers are registered, never provisioned. */
export function configureSharedServer(): JsonObject {
  throw new Error('PostgreSQLServer cannot be provisioned from a class: it registers an existing server');
}

/**
 * localInstanceMatcher judges a claim against a LocalPostgreSQLInstance or a class that
 * creates one. `binaryVersion` is the version of the server binaries this machine runs
 * (undefined when none were found): an instance without an observed or pinned version runs
 * those.
 */
export function localInstanceMatcher(binaryVersion: string | undefined) {
  return function matchLocalInstance(claim: KObject, candidate: MatchCandidate<LocalPostgreSQLInstance>): MatchResult {
    const wanted = claimSpec(claim);
    const nameProblem =
      (wanted.masterUsername ? roleNameProblem(wanted.masterUsername) : undefined) ??
      (wanted.databaseName ? databaseNameProblem(wanted.databaseName) : undefined);
    if (nameProblem) return doesNotFit(nameProblem);

    if (candidate.type === 'class') {
      if (!binaryVersion) return doesNotFit('no PostgreSQL server binaries on this machine');
      const pinned = specString(candidate.template.spec, 'version');
      if (pinned) {
        const unusable = versionMismatch(pinned, binaryVersion, true);
        if (unusable) return doesNotFit(`class pins version "${pinned}" but this machine runs PostgreSQL ${binaryVersion}`);
      }
      // The claim's user and database names override the template's.
      return versionResult(wanted.version, binaryVersion, true);
    }

    const spec = candidate.resource.spec;
    const user = spec.masterUsername || defaultAppUser;
    if (wanted.masterUsername && wanted.masterUsername !== user) {
      return doesNotFit(`instance user is "${user}", claim wants "${wanted.masterUsername}"`);
    }
    const database = spec.databaseName || defaultAppDatabase;
    if (wanted.databaseName && wanted.databaseName !== database) {
      return doesNotFit(`instance database is "${database}", claim wants "${wanted.databaseName}"`);
    }
    const observed = atProviderString(candidate.resource, 'version');
    if (observed) return versionResult(wanted.version, observed, true);
    return versionResult(wanted.version, binaryVersion, true);
  };
}

/**
 * configureLocalInstance builds a LocalPostgreSQLInstance spec from a class template: the
 * claim's user and database names replace the template's; the template's version stays when
 * it fits the claim's range, else the claim's range is used; the claim's capacity requests
 * replace the template's capabilities.capacity, and its region and tiers fill in what the
 * template leaves open.
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
