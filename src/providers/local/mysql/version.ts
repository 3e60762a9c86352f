/**
 * MySQL and MariaDB versions against claim version ranges.
 *
 * Claims ask with semver ranges in MySQL's numbering (">= 5.6", "5.7", "8.0"); servers
 * report strings such as "8.0.36" or "10.11.19-MariaDB-0+deb12u1". MariaDB forked from
 * MySQL 5.5 and numbered its releases 10.x and 11.x, so its numbers do not order with
 * MySQL's: MariaDB 10.11 is not "newer than MySQL 8.0". The rule here:
 *
 * - a MySQL server is judged by its own version;
 * - a MariaDB server is judged by its own version when the claim's range is written in
 *   MariaDB's numbering (its lowest version has a major of 10 or more, e.g. ">= 10.6");
 * - otherwise (MySQL numbering, e.g. ">= 5.6") a MariaDB server counts as the MySQL line it
 *   is compatible with: MariaDB 5.x as MySQL 5.x, 10.0 and 10.1 as MySQL 5.6, 10.2 and later
 *   as MySQL 5.7 (any 5.7 release). So MariaDB 10.11 satisfies ">= 5.6" and "5.7" but not
 *   ">= 8.0".
 */
import semver from 'semver';

export type Flavor = 'mariadb' | 'mysql';

/** A ServerVersion is a version read from a server or a spec, with the product it names. */
export interface ServerVersion {
  flavor: Flavor;
  version: semver.SemVer;
}

/**
 * parseServerVersion reads "8.0.36", "10.11.19-MariaDB-0+deb12u1" or "mariadbd Ver
 * 10.11.19-MariaDB" (MariaDB when the text says so or the major is 10 or more).
 */
export function parseServerVersion(text: string): ServerVersion | undefined {
  const version = semver.coerce(text);
  if (!version) return undefined;
  const flavor: Flavor = /mariadb/i.test(text) || version.major >= 10 ? 'mariadb' : 'mysql';
  return { flavor, version };
}

/** mysqlCompatibleLine is the MySQL major.minor a MariaDB version is compatible with. */
export function mysqlCompatibleLine(v: ServerVersion): string {
  const { major, minor } = v.version;
  if (v.flavor === 'mysql' || major < 10) return `${major}.${minor}`;
  return major === 10 && minor <= 1 ? '5.6' : '5.7';
}

/** describeVersion renders a version for messages, e.g. "MariaDB 10.11.19" or "MySQL 8.0.36". */
export function describeVersion(v: ServerVersion): string {
  return `${v.flavor === 'mariadb' ? 'MariaDB' : 'MySQL'} ${v.version.version}`;
}

/** rangeProblem says why a version range a claim asks for is unusable, or returns undefined. */
export function rangeProblem(range: string): string | undefined {
  return semver.validRange(range, { loose: true }) === null
    ? `version "${range}" is not a valid version range (want e.g. "5.7", ">= 5.6" or "10.6 - 11")`
    : undefined;
}

/** inMariaDbNumbering says whether a range speaks of MariaDB releases (its lowest major is 10 or more). */
export function inMariaDbNumbering(range: string): boolean {
  const lowest = semver.minVersion(range, { loose: true });
  return lowest !== null && lowest.major >= 10;
}

/**
 * versionMismatch compares what a claim asks (`wanted`, a range) with what a server offers
 * (`offered`: an exact version when `exact`, else a spec's loose version such as "8.0",
 * meaning any 8.0.x) and says why they do not match, or returns undefined when they do.
 */
export function versionMismatch(wanted: string, offered: string, exact: boolean): string | undefined {
  const problem = rangeProblem(wanted);
  if (problem) return problem;
  const server = parseServerVersion(offered);
  if (!server) return `server version "${offered}" cannot be read`;
  if (server.flavor === 'mariadb' && !inMariaDbNumbering(wanted)) {
    const line = mysqlCompatibleLine(server);
    return semver.intersects(`${line}.x`, wanted, { loose: true })
      ? undefined
      : `${describeVersion(server)} (compatible with MySQL ${line}) does not satisfy "${wanted}"`;
  }
  if (exact) {
    return semver.satisfies(server.version, wanted, { loose: true }) ? undefined : `${describeVersion(server)} does not satisfy "${wanted}"`;
  }
  const offeredRange = semver.validRange(offered, { loose: true }) ?? `${server.version.major}.${server.version.minor}.x`;
  return semver.intersects(offeredRange, wanted, { loose: true }) ? undefined : `version "${offered}" does not satisfy "${wanted}"`;
}
