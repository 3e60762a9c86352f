/**
 * Google's naming rules for the ids Conductor creates — Pub/Sub topics and subscriptions,
 * Spanner instances and databases — and the names Conductor gives them after a claim.
 * - topic and subscription: 3 to 255 characters, beginning with a letter, of letters, digits
 *   and `-_.~+%`, never beginning with `goog`;
 * - Spanner instance: 2 to 64 lower-case letters, digits and hyphens, beginning with a letter
 *   and not ending with a hyphen;
 * - Spanner database: 2 to 30 lower-case letters, digits, `_` and `-`, beginning with a
 *   letter and not ending with `_` or `-`;
 * - Cloud SQL instance: lower-case letters, digits and hyphens, beginning with a letter, not
 *   ending with a hyphen (Google allows 98 characters with the project id; Conductor 63);
 * - Cloud SQL database and user: 1 to 63 letters, digits and `_`, beginning with a letter (the
 *   names need no quoting in PostgreSQL and MySQL);
 * - Memorystore instance: 1 to 40 lower-case letters, digits and hyphens, beginning with a
 *   letter and not ending with a hyphen;
 * - GCS bucket: 3 to 63 lower-case letters, digits, `-` and `_`, beginning and ending with a
 *   letter or digit, never beginning with `goog` nor holding `google` (dotted names need domain
 *   verification: not offered). Bucket names are global across all of Google Cloud.
 */
import { shareName } from '../share-names.js';

export type GcpNameKind = 'topic' | 'subscription' | 'instance' | 'database' | 'sqlInstance' | 'sqlName' | 'redisInstance' | 'bucket';

interface Rule {
  readonly what: string;
  readonly min: number;
  readonly max: number;
  readonly pattern: RegExp;
  readonly says: string;
}

const RULES: Record<GcpNameKind, Rule> = {
  topic: { what: 'topic id', min: 3, max: 255, pattern: /^[A-Za-z][A-Za-z0-9\-_.~+%]*$/, says: 'begin with a letter and hold only letters, digits and -_.~+%' },
  subscription: {
    what: 'subscription id',
    min: 3,
    max: 255,
    pattern: /^[A-Za-z][A-Za-z0-9\-_.~+%]*$/,
    says: 'begin with a letter and hold only letters, digits and -_.~+%',
  },
  instance: {
    what: 'instance id',
    min: 2,
    max: 64,
    pattern: /^[a-z][a-z0-9-]*[a-z0-9]$/,
    says: 'begin with a lower-case letter, hold only lower-case letters, digits and hyphens, and not end with a hyphen',
  },
  database: {
    what: 'database id',
    min: 2,
    max: 30,
    pattern: /^[a-z][a-z0-9_-]*[a-z0-9]$/,
    says: 'begin with a lower-case letter, hold only lower-case letters, digits, _ and -, and not end with _ or -',
  },
  sqlInstance: {
    what: 'Cloud SQL instance id',
    min: 2,
    max: 63,
    pattern: /^[a-z][a-z0-9-]*[a-z0-9]$/,
    says: 'begin with a lower-case letter, hold only lower-case letters, digits and hyphens, and not end with a hyphen',
  },
  sqlName: { what: 'name', min: 1, max: 63, pattern: /^[A-Za-z][A-Za-z0-9_]*$/, says: 'begin with a letter and hold only letters, digits and _' },
  redisInstance: {
    what: 'Memorystore instance id',
    min: 1,
    max: 40,
    pattern: /^[a-z]([a-z0-9-]*[a-z0-9])?$/,
    says: 'begin with a lower-case letter, hold only lower-case letters, digits and hyphens, and not end with a hyphen',
  },
  bucket: {
    what: 'bucket name',
    min: 3,
    max: 63,
    pattern: /^[a-z0-9][a-z0-9_-]*[a-z0-9]$/,
    says: 'hold only lower-case letters, digits, - and _, and begin and end with a letter or digit',
  },
};

/** The schema patterns of the four ids (the CRDs check them at admission). */
export const GCP_NAME_PATTERNS: Record<GcpNameKind, string> = {
  topic: '^[A-Za-z][A-Za-z0-9\\-_.~+%]{2,254}$',
  subscription: '^[A-Za-z][A-Za-z0-9\\-_.~+%]{2,254}$',
  instance: '^[a-z][a-z0-9-]{0,62}[a-z0-9]$',
  database: '^[a-z][a-z0-9_-]{0,28}[a-z0-9]$',
  sqlInstance: '^[a-z][a-z0-9-]{0,61}[a-z0-9]$',
  sqlName: '^[A-Za-z][A-Za-z0-9_]{0,62}$',
  redisInstance: '^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$',
  bucket: '^[a-z0-9][a-z0-9_-]{1,61}[a-z0-9]$',
};

/** gcpNameProblem says why `name` breaks Google's rules for `kind`, or returns undefined. */
export function gcpNameProblem(kind: GcpNameKind, name: string): string | undefined {
  const rule = RULES[kind];
  if (name.length < rule.min || name.length > rule.max) return `${rule.what} "${name}" has ${name.length} characters: want ${rule.min} to ${rule.max}`;
  if (!rule.pattern.test(name)) return `${rule.what} "${name}" must ${rule.says}`;
  if ((kind === 'topic' || kind === 'subscription' || kind === 'bucket') && name.toLowerCase().startsWith('goog'))
    return `${rule.what} "${name}" must not begin with "goog"`;
  if (kind === 'bucket' && name.includes('google')) return `${rule.what} "${name}" must not hold "google"`;
  return undefined;
}

/** A GcpNameError says a name breaks Google's rules; the reconciler shows it as the condition's message. */
export class GcpNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GcpNameError';
  }
}

/** checkedGcpName returns `name` when it is valid, else throws a GcpNameError saying why. */
export function checkedGcpName(kind: GcpNameKind, name: string): string {
  const problem = gcpNameProblem(kind, name);
  if (problem) throw new GcpNameError(problem);
  return name;
}

/**
 * claimGcpName is the id of what a claim `namespace/name` gets: `<namespace>-<name>-<16 hex>`
 * (the hash of providers/share-names.ts, so no tenant can name its way into another claim's
 * topic or database), lower case, cut to the kind's limit (at most 63), prefixed `c-` when it
 * would not begin with a letter or would begin with `goog`.
 */
export function claimGcpName(kind: GcpNameKind, namespace: string, name: string): string {
  const limit = Math.min(RULES[kind].max, 63) - 2;
  const base = shareName([namespace, name], limit, kind === 'sqlName' ? 'identifier' : 'label');
  return /^[a-z]/.test(base) && !base.startsWith('goog') ? base : kind === 'sqlName' ? `c_${base}` : `c-${base}`;
}

/**
 * bucketGcpName is the name of a bucket of project `project` for `namespace/name`:
 * `<namespace>-<name>-<16 hex>` with the project in the hash — bucket names are global, so
 * two Conductors (two projects) with the same claim never reach for the same name.
 */
export function bucketGcpName(project: string, namespace: string, name: string): string {
  const base = shareName([project, namespace, name], 61, 'label').replace(/google/g, 'g00gle');
  return /^[a-z]/.test(base) && !base.startsWith('goog') ? base : `c-${base}`;
}

/** defaultGcpName is the id of a resource that names none: its own name when Google accepts it, else one derived from its namespace and name. */
export function defaultGcpName(kind: GcpNameKind, namespace: string, name: string): string {
  return gcpNameProblem(kind, name) === undefined ? name : claimGcpName(kind, namespace, name);
}
