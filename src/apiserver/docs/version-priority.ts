/**
 * Version priority orders API versions the way Kubernetes clients expect: GA before beta
 * before alpha, higher numbers first within a stage, and versions that do not look like
 * Kubernetes versions (`v1`, `v2beta1`, `v1alpha3`) last, alphabetically.
 */

/** A ParsedVersion is a Kubernetes-style version split into its parts. */
interface ParsedVersion {
  major: number;
  /** 2 for GA, 1 for beta, 0 for alpha. */
  stage: number;
  minor: number;
}

const KUBE_VERSION = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/;

function parse(version: string): ParsedVersion | undefined {
  const m = KUBE_VERSION.exec(version);
  if (!m) return undefined;
  const stage = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return { major: Number(m[1]), stage, minor: m[3] === undefined ? 0 : Number(m[3]) };
}

/**
 * compareVersionPriority sorts higher-priority versions first: it returns a negative number
 * when `a` is preferred over `b`, a positive one when `b` is, and 0 when they are equal.
 */
export function compareVersionPriority(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) {
    if (pa.stage !== pb.stage) return pb.stage - pa.stage;
    if (pa.major !== pb.major) return pb.major - pa.major;
    return pb.minor - pa.minor;
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
