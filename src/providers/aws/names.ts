/**
 * AWS's naming rules for the names Conductor gives S3 buckets, SQS queues, RDS instances and
 * ElastiCache replication groups,
 * and the names it derives from a claim: `<namespace>-<name>-<16 hex>` (the hash of
 * providers/share-names.ts over the exact parts), so no tenant can name its way into another
 * claim's bucket, queue or database.
 */
import { shareName } from '../share-names.js';

/** What is named. */
export type AwsNameKind = 'bucket' | 'queue' | 'instance' | 'replicationGroup';

/** The schema patterns (RE2: no look-around; the CRDs add CEL rules for the rest). */
export const BUCKET_NAME_PATTERN = '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$';
export const QUEUE_NAME_PATTERN = '^[A-Za-z0-9_-]{1,75}(\\.fifo)?$';
export const INSTANCE_ID_PATTERN = '^[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$';
export const REPLICATION_GROUP_ID_PATTERN = '^[a-zA-Z]([a-zA-Z0-9-]{0,38}[a-zA-Z0-9])?$';

/** awsNameProblem says why `name` breaks AWS's rules for a bucket, queue, DB instance identifier or replication group ID, or returns undefined. */
export function awsNameProblem(kind: AwsNameKind, name: string): string | undefined {
  if (kind === 'bucket') {
    if (name.length < 3 || name.length > 63) return `bucket name "${name}" has ${name.length} characters: want 3 to 63`;
    if (!/^[a-z0-9.-]+$/.test(name)) return `bucket name "${name}" may hold only lower-case letters, digits, dots and hyphens`;
    if (!/^[a-z0-9].*[a-z0-9]$/.test(name)) return `bucket name "${name}" must begin and end with a letter or digit`;
    if (name.includes('..')) return `bucket name "${name}" has two dots in a row`;
    if (/^\d+\.\d+\.\d+\.\d+$/.test(name)) return `bucket name "${name}" looks like an IP address`;
    if (name.startsWith('xn--') || name.startsWith('sthree-') || name.endsWith('-s3alias') || name.endsWith('--ol-s3'))
      return `bucket name "${name}" uses a prefix or suffix S3 reserves`;
    return undefined;
  }
  if (kind === 'queue') {
    const base = name.endsWith('.fifo') ? name.slice(0, -5) : name;
    if (base.length < 1 || name.length > 80) return `queue name "${name}" has ${name.length} characters: want 1 to 80 (with .fifo)`;
    if (!/^[A-Za-z0-9_-]+$/.test(base)) return `queue name "${name}" may hold only letters, digits, hyphens and underscores (and end in .fifo)`;
    return undefined;
  }
  if (kind === 'replicationGroup') {
    if (name.length < 1 || name.length > 40) return `replication group ID "${name}" has ${name.length} characters: want 1 to 40`;
    if (!/^[A-Za-z]/.test(name)) return `replication group ID "${name}" must begin with a letter`;
    if (!/^[A-Za-z0-9-]+$/.test(name)) return `replication group ID "${name}" may hold only letters, digits and hyphens`;
    if (name.endsWith('-') || name.includes('--')) return `replication group ID "${name}" may not end with a hyphen or hold two in a row`;
    return undefined;
  }
  if (name.length < 1 || name.length > 63) return `DB instance identifier "${name}" has ${name.length} characters: want 1 to 63`;
  if (!/^[A-Za-z]/.test(name)) return `DB instance identifier "${name}" must begin with a letter`;
  if (!/^[A-Za-z0-9-]+$/.test(name)) return `DB instance identifier "${name}" may hold only letters, digits and hyphens`;
  if (name.endsWith('-') || name.includes('--')) return `DB instance identifier "${name}" may not end with a hyphen or hold two in a row`;
  return undefined;
}

/** An AwsNameError says a name breaks AWS's rules; the reconciler shows it as the condition's message. */
export class AwsNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AwsNameError';
  }
}

/** checkedAwsName returns `name` when valid, else throws an AwsNameError saying why. */
export function checkedAwsName(kind: AwsNameKind, name: string): string {
  const problem = awsNameProblem(kind, name);
  if (problem) throw new AwsNameError(problem);
  return name;
}

/**
 * claimAwsName is the name of a new claim's bucket, queue or instance: `<namespace>-<name>-<16
 * hex>`, lower case, cut to fit (buckets and instances 63, replication groups 40; queues 80,
 * less `.fifo` for a FIFO queue, which gets the suffix). A DB instance identifier or
 * replication group ID begins with a letter: `c-` is put in front when the namespace begins
 * with a digit.
 */
export function claimAwsName(kind: AwsNameKind, namespace: string, name: string, fifo = false): string {
  if (kind === 'queue') return `${shareName([namespace, name], fifo ? 75 : 80, 'label')}${fifo ? '.fifo' : ''}`;
  const limit = kind === 'instance' ? 61 : kind === 'replicationGroup' ? 38 : 63;
  const base = shareName([namespace, name], limit, 'label');
  return kind !== 'bucket' && !/^[a-z]/.test(base) ? `c-${base}` : base;
}

/**
 * defaultAwsName is the name of a resource that names none (an administrator's resource):
 * derived from its namespace and name as for a claim — bucket names are global across all of
 * AWS, so the resource's bare name would collide with other accounts'.
 */
export function defaultAwsName(kind: AwsNameKind, namespace: string, name: string, fifo = false): string {
  return claimAwsName(kind, namespace, name, fifo);
}
