/**
 * PostgreSQL versions against claim version ranges. Claims ask with semver ranges and loose
 * versions (">= 14", "15", "15.4"); servers report `server_version_num` (150004) or
 * strings such as "15.4 (Debian 15.4-1)". PostgreSQL 10 and later number releases
 * major.minor, which map onto semver as major.minor.0.
 */
import semver from 'semver';

/** versionFromServerNum turns `server_version_num` (e.g. 150004) into "15.4". */
export function versionFromServerNum(num: number): string {
  if (num >= 100000) return `${Math.floor(num / 10000)}.${num % 10000}`;
  // Before 10: 90624 is 9.6.24.
  return `${Math.floor(num / 10000)}.${Math.floor(num / 100) % 100}.${num % 100}`;
}

/** parseVersion reads a loose version ("15", "15.4", "postgres (PostgreSQL) 18.4") as semver. */
export function parseVersion(text: string): semver.SemVer | undefined {
  return semver.coerce(text) ?? undefined;
}

/**
 * rangeProblem says why a version range a claim asks for is unusable, or returns undefined.
 */
export function rangeProblem(range: string): string | undefined {
  return semver.validRange(range, { loose: true }) === null
    ? `version "${range}" is not a valid version range (want e.g. "15", ">= 14" or "14 - 16")`
    : undefined;
}

/**
 * versionMismatch compares what a claim asks (`wanted`, a range) with what a server offers
 * (`offered`: an exact version when `exact`, else itself a range such as "15" meaning any
 * 15.x) and says why they do not match, or returns undefined when they do.
 */
export function versionMismatch(wanted: string, offered: string, exact: boolean): string | undefined {
  const problem = rangeProblem(wanted);
  if (problem) return problem;
  if (exact) {
    const version = parseVersion(offered);
    if (!version) return `server version "${offered}" cannot be read`;
    return semver.satisfies(version, wanted, { loose: true }) ? undefined : `version ${version.major}.${version.minor} does not satisfy "${wanted}"`;
  }
  if (semver.validRange(offered, { loose: true }) === null) return `offered version "${offered}" cannot be read`;
  return semver.intersects(offered, wanted, { loose: true }) ? undefined : `version "${offered}" does not satisfy "${wanted}"`;
}
