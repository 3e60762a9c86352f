/**
 * Names for things the scheduler indexes: kind keys (how claim kinds are matched, case
 * insensitively) and candidate keys (the identity `upsert` and `remove` use).
 */
import type { Candidate, ClaimInfo, GroupKind } from './types.js';

/** The ResourceClass kind; class candidates are keyed under it. */
export const RESOURCE_CLASS_KIND: GroupKind = Object.freeze({ group: 'core.conductor.io', kind: 'ResourceClass' });

const kindKeys = new WeakMap<GroupKind, string>();

/** kindKey is the case-insensitive matching key of a kind: `mysqlinstance.storage.conductor.io` (remembered per object). */
export function kindKey(gk: GroupKind): string {
  let k = kindKeys.get(gk);
  if (k === undefined) {
    k = gk.group === '' ? gk.kind.toLowerCase() : `${gk.kind}.${gk.group}`.toLowerCase();
    kindKeys.set(gk, k);
  }
  return k;
}

/** formatKind prints a kind for people: `MySQLInstance.storage.conductor.io`. */
export function formatKind(gk: GroupKind): string {
  return gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
}

/** resourceKey is the identity of a concrete resource: `<group>/<Kind>/<namespace>/<name>`. */
export function resourceKey(kind: GroupKind, namespace: string, name: string): string {
  return `${kind.group}/${kind.kind}/${namespace}/${name}`;
}

/**
 * classKey is the identity of a ResourceClass candidate; a class placed on several Providers
 * has one candidate per `target` Provider (`…/<class>@<provider>`; names hold no `@`).
 */
export function classKey(namespace: string, name: string, target?: string): string {
  const key = resourceKey(RESOURCE_CLASS_KIND, namespace, name);
  return target === undefined ? key : `${key}@${target}`;
}

/** candidateKey is the identity of a candidate, unique across resources of every kind and classes. */
export function candidateKey(c: Candidate): string {
  return c.type === 'resource' ? resourceKey(c.kind, c.namespace, c.name) : classKey(c.namespace, c.name, c.target);
}

/** claimKey is `namespace/name`, how claimRefs are looked up. */
export function claimKey(claim: Pick<ClaimInfo, 'namespace' | 'name'>): string {
  return `${claim.namespace}/${claim.name}`;
}

const VERSION_SEGMENT = /^v\d+((alpha|beta)\d+)?$/;

/**
 * parseSupportedResource reads a ResourceClass `supportedResources` entry:
 * `Kind.version.group` (`MySqlInstance.v1alpha1.storage.conductor.io`), `Kind.group` or a bare
 * `Kind`. Matching is case-insensitive, so the kind's case is kept as written.
 */
export function parseSupportedResource(entry: string): GroupKind {
  const parts = entry.trim().split('.');
  const kind = parts[0] ?? '';
  if (kind === '') throw new Error(`cannot read supported resource ${JSON.stringify(entry)}: expected Kind.version.group`);
  const rest = parts.slice(1);
  if (rest.length > 0 && VERSION_SEGMENT.test(rest[0])) rest.shift();
  return { kind, group: rest.join('.') };
}
