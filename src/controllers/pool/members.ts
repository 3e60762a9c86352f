/**
 * Pool members: the concrete resources of a ResourceClass, read into what the sizing
 * decision needs (free, taken or going away; Available or not; created when), and the
 * object the pool manager creates for a new member.
 *
 * A class's resources carry the label `conductor.io/resource-class: <namespace>.<name>`
 * whoever created them (the claim controller for a claim, the pool manager for the pool);
 * the pool manager's own also carry `conductor.io/pool: "true"`, and only those does it
 * ever delete.
 */
import { deepCopy, isPlainObject, type KObject } from '../../machinery/object.js';
import { CLASS_LABEL, classLabelValue, classOfLabel } from '../claims/labels.js';
import type { PoolTemplate } from './pool-settings.js';

export { CLASS_LABEL, classLabelValue, classOfLabel };

/** The label on resources the pool manager created (`"true"`). */
export const POOL_LABEL = 'conductor.io/pool';

/**
 * A MemberState says what a class resource is to its pool: `free` (unbound, so a claim may
 * take it), `taken` (bound to a claim, or Released and waiting for an administrator), or
 * `deleting` (it has a deletionTimestamp).
 */
export type MemberState = 'free' | 'taken' | 'deleting';

/** A PoolMember is one resource of a class, as the sizing decision sees it. */
export interface PoolMember {
  /** The resource's kind (a class's template may change kind; old members keep theirs). */
  kind: string;
  name: string;
  namespace: string;
  uid?: string;
  resourceVersion?: string;
  /** Created by the pool manager (label `conductor.io/pool: "true"`): the only ones it deletes. */
  pooled: boolean;
  state: MemberState;
  /** `status.phase` is Available: provisioned and ready for a claim. */
  available: boolean;
  /** creationTimestamp in ms since the epoch; 0 when unknown. */
  createdAt: number;
}

function hasClaimRef(spec: Record<string, unknown>): boolean {
  const ref = spec['claimRef'];
  return isPlainObject(ref) && typeof ref['name'] === 'string' && ref['name'] !== '';
}

/** memberStateOf classifies a class resource; see MemberState. */
export function memberStateOf(obj: KObject): MemberState {
  if (obj.metadata.deletionTimestamp) return 'deleting';
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const status = isPlainObject(obj.status) ? obj.status : {};
  if (hasClaimRef(spec)) return 'taken';
  if (Array.isArray(status['bindings']) && status['bindings'].length > 0) return 'taken';
  if (status['phase'] === 'Bound' || status['phase'] === 'Released') return 'taken';
  return 'free';
}

/** memberOf reads a class resource into a PoolMember. */
export function memberOf(obj: KObject): PoolMember {
  const status = isPlainObject(obj.status) ? obj.status : {};
  const created = Date.parse(obj.metadata.creationTimestamp ?? '');
  return {
    kind: obj.kind,
    name: obj.metadata.name ?? '',
    namespace: obj.metadata.namespace ?? '',
    ...(obj.metadata.uid ? { uid: obj.metadata.uid } : {}),
    ...(obj.metadata.resourceVersion ? { resourceVersion: obj.metadata.resourceVersion } : {}),
    pooled: obj.metadata.labels?.[POOL_LABEL] === 'true',
    state: memberStateOf(obj),
    available: status['phase'] === 'Available',
    createdAt: Number.isNaN(created) ? 0 : created,
  };
}

/** describeMembers names members for a message, grouped by kind: `LocalPostgreSQLInstance a-pool-0, a-pool-1`. */
export function describeMembers(members: readonly PoolMember[]): string {
  const byKind = new Map<string, string[]>();
  for (const m of members) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m.name]);
  return [...byKind].map(([kind, names]) => `${kind} ${names.join(', ')}`).join('; ');
}

/**
 * buildPoolMember is the resource a class's pool adds under `name` in `namespace` (the pool
 * manager passes the system namespace, whatever the class's): the template as the
 * claim controller provisions it, but bound to no claim — the template's labels and
 * annotations plus the class and pool labels; the template's spec plus the class's
 * rebindPolicy (default Delete), profile (`resourceClass`, default the class's name),
 * providerRef and capabilities. No claim's portable fields are applied: the member serves
 * whichever claim of the profile comes first.
 */
export function buildPoolMember(cls: KObject, template: PoolTemplate, name: string, namespace = cls.metadata.namespace): KObject {
  const spec: Record<string, unknown> = deepCopy(template.spec);
  delete spec['claimRef'];
  spec['rebindPolicy'] = typeof cls['rebindPolicy'] === 'string' ? cls['rebindPolicy'] : 'Delete';
  spec['resourceClass'] = typeof cls['resourceClass'] === 'string' && cls['resourceClass'] !== '' ? cls['resourceClass'] : cls.metadata.name;
  if (isPlainObject(cls['providerRef'])) spec['providerRef'] = deepCopy(cls['providerRef']);
  if (isPlainObject(cls['capabilities'])) spec['capabilities'] = deepCopy(cls['capabilities']);
  return {
    apiVersion: template.apiVersion,
    kind: template.kind,
    metadata: {
      name,
      namespace,
      labels: {
        ...template.labels,
        [CLASS_LABEL]: classLabelValue(cls.metadata.namespace ?? '', cls.metadata.name ?? ''),
        [POOL_LABEL]: 'true',
      },
      ...(Object.keys(template.annotations).length > 0 ? { annotations: { ...template.annotations } } : {}),
    },
    spec,
  };
}
