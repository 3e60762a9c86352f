/**
 * Whether a MemoryDatabase (or a class that would create one) can serve a SQL claim's
 * portable fields — version range, user and database names — and how a class template
 * becomes a new MemoryDatabase's spec. The same rules serve PostgreSQLInstance and
 * MySQLInstance claims: a MemoryDatabase is whichever engine its claim asks for.
 */
import { createRequire } from 'node:module';
import type * as Semver from 'semver';
import { deepCopy, type JsonObject, type KObject } from '../../machinery/object.js';
import { doesNotFit, fits, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../spi.js';
import { claimSpec, defaultDatabase, defaultUsername, nonEmpty, specOf, type MemoryDatabase, type SqlClaimSpec } from './kinds.js';
import { capabilitiesWithRequirements } from '../requirements.js';

/**
 * semver (a CommonJS package of 47 files) is loaded by the first version judged, not when the
 * catalog loads this provider at every start of the server (25–70 ms of the time to ready).
 */
const requireModule = createRequire(import.meta.url);
let semverModule: typeof Semver | undefined;
function semver(): typeof Semver {
  return (semverModule ??= requireModule('semver') as typeof Semver);
}

/** The remembered verdict meaning "no problem", and how many verdicts are remembered at most. */
const OK = '';
const MAX_REMEMBERED = 4096;

/** rangeProblem says why a claim's version range cannot be read, or returns undefined. */
export function rangeProblem(range: string): string | undefined {
  let known = rangeVerdicts.get(range);
  if (known === undefined) {
    known =
      semver().validRange(range, { loose: true }) === null ? `version "${range}" is not a valid version range (want e.g. "16", ">= 14" or "5.7 - 8")` : OK;
    if (rangeVerdicts.size >= MAX_REMEMBERED) rangeVerdicts.clear();
    rangeVerdicts.set(range, known);
  }
  return known === OK ? undefined : known;
}

/** Verdicts on ranges: the scheduler asks about the same claim's range for every candidate. */
const rangeVerdicts = new Map<string, string>();

/**
 * versionMismatch says why the version a resource states (`offered`, a loose version such as
 * "16", "16.4" or "8.0.36") does not satisfy the range a claim asks (`wanted`), or returns
 * undefined when it does.
 */
export function versionMismatch(wanted: string, offered: string): string | undefined {
  // The scheduler asks this for every candidate it looks at, mostly with the same few pairs.
  const key = `${wanted}\u0000${offered}`;
  const known = verdicts.get(key);
  if (known !== undefined) return known === OK ? undefined : known;
  const verdict = judgeVersion(wanted, offered);
  if (verdicts.size >= MAX_REMEMBERED) verdicts.clear();
  verdicts.set(key, verdict ?? OK);
  return verdict;
}

/** Verdicts by (range, version): parsing a semver range costs far more than a lookup. */
const verdicts = new Map<string, string>();

function judgeVersion(wanted: string, offered: string): string | undefined {
  const problem = rangeProblem(wanted);
  if (problem) return problem;
  const version = semver().coerce(offered);
  if (!version) return `version "${offered}" cannot be read as a version`;
  return semver().satisfies(version, wanted, { loose: true }) ? undefined : `version "${offered}" does not satisfy "${wanted}"`;
}

/**
 * concreteVersion picks the version a new MemoryDatabase states for a claim's range: the
 * lowest the range allows, as major.minor (".patch" when it is not 0), e.g. ">= 14" → "14.0".
 */
export function concreteVersion(range: string): string {
  const min = semver().validRange(range, { loose: true }) === null ? null : semver().minVersion(range, { loose: true });
  if (!min) return range;
  return min.patch === 0 ? `${min.major}.${min.minor}` : `${min.major}.${min.minor}.${min.patch}`;
}

function namesProblem(wanted: SqlClaimSpec, spec: { masterUsername?: string; databaseName?: string }): string | undefined {
  const user = nonEmpty(spec.masterUsername) ?? defaultUsername;
  if (wanted.masterUsername && wanted.masterUsername !== user) return `database user is "${user}", claim wants "${wanted.masterUsername}"`;
  const database = nonEmpty(spec.databaseName) ?? defaultDatabase;
  if (wanted.databaseName && wanted.databaseName !== database) return `database is "${database}", claim wants "${wanted.databaseName}"`;
  return undefined;
}

/**
 * matchMemoryDatabase judges a SQL claim against a MemoryDatabase or a class that creates
 * one. A resource must state a version satisfying the claim's range (when the claim asks
 * one); an Exclusive resource must also report the user and database names the claim insists
 * on (default "app"), while a Shared one gives each claim its own. A class fits unless it
 * pins a version outside the range: the claim's fields override its template.
 */
export function matchMemoryDatabase(claim: KObject, candidate: MatchCandidate<MemoryDatabase>): MatchResult {
  const wanted = claimSpec(claim);
  const range = nonEmpty(wanted.version);
  if (range) {
    const problem = rangeProblem(range);
    if (problem) return doesNotFit(problem);
  }
  if (candidate.type === 'class') {
    const pinned = nonEmpty(candidate.template.spec?.version);
    if (range && pinned) {
      const mismatch = versionMismatch(range, pinned);
      if (mismatch) return doesNotFit(`class pins ${mismatch}`);
    }
    return fits;
  }
  const spec = specOf(candidate.resource);
  if (range) {
    const offered = nonEmpty(spec.version);
    if (!offered) return doesNotFit(`MemoryDatabase states no version, claim wants "${range}"`);
    const mismatch = versionMismatch(range, offered);
    if (mismatch) return doesNotFit(mismatch);
  }
  if (spec.sharing?.mode === 'Shared') return fits;
  const problem = namesProblem(wanted, spec);
  return problem ? doesNotFit(problem) : fits;
}

/**
 * configureMemoryDatabase builds a MemoryDatabase spec from a class template: the claim's
 * user and database names replace the template's; the template's version stays when it
 * satisfies the claim's range, else the lowest version of the range is used; the claim's
 * capacity requests replace the template's, and its region and tiers fill in what the
 * template leaves open. It does not modify its arguments.
 */
export function configureMemoryDatabase(claim: KObject, template: ResourceTemplate): JsonObject {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const wanted = claimSpec(claim);
  const range = nonEmpty(wanted.version);
  if (range) {
    const pinned = nonEmpty(spec.version);
    if (!pinned || versionMismatch(range, pinned)) spec.version = concreteVersion(range);
  }
  if (nonEmpty(wanted.masterUsername)) spec.masterUsername = wanted.masterUsername!;
  if (nonEmpty(wanted.databaseName)) spec.databaseName = wanted.databaseName!;
  if (wanted.requirements) spec.capabilities = capabilitiesWithRequirements(spec.capabilities, wanted.requirements);
  return spec;
}
