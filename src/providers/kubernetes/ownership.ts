/**
 * Which KubernetesObject an object in the target belongs to. Every object Conductor creates
 * or corrects carries the annotation `kubernetes.conductor.io/owner-uid` with the uid of the
 * KubernetesObject that keeps it. A claim's values can name the object (a class template's
 * `$(claim.spec.x)` in metadata.name), so an object that exists under that name may be
 * another claim's, or nobody's: a KubernetesObject acts on an existing object only when
 * - the object names its uid (it made it, or adopted it);
 * - it is ObserveOnly (it never writes; an admin asked to read that object);
 * - an admin asked to adopt it: the KubernetesObject's `conductor.io/external-name` names the
 *   object and Conductor never created anything for it (no create mark), so the annotation was
 *   written by hand or by the class, never by a create;
 * - the object has no owner mark at all and this KubernetesObject recorded creating it (made
 *   before owner marks existed; the next apply adds the mark).
 * Anything else is owned elsewhere: never applied to, deleted, or read for details, and its
 * values are never quoted.
 */
import { EXTERNAL_CREATE_PENDING_ANNOTATION, EXTERNAL_CREATE_SUCCEEDED_ANNOTATION, EXTERNAL_NAME_ANNOTATION } from '../../apis/well-known.js';
import { isPlainObject, type JsonObject, type KObject } from '../../machinery/object.js';
import { FIELD_MANAGER } from './target-client.js';

/** The annotation naming the uid of the KubernetesObject that keeps a target object. */
export const OWNER_UID_ANNOTATION = 'kubernetes.conductor.io/owner-uid';

/** The reason (Ready=False) of a KubernetesObject whose object in the target is another's. */
export const OWNED_ELSEWHERE_REASON = 'TargetObjectOwnedElsewhere';

/** An Ownership is whether a KubernetesObject may act on an existing object, and why. */
export type Ownership =
  { owned: true; why: 'Marked' | 'ObserveOnly' | 'Import' | 'CreatedBeforeMarks' } | { owned: false; why: 'MarkedForAnother' | 'Unmarked' };

function ownerMarkOf(live: JsonObject): string | undefined {
  const meta = isPlainObject(live.metadata) ? live.metadata : {};
  const annotations = isPlainObject(meta.annotations) ? meta.annotations : {};
  const mark = annotations[OWNER_UID_ANNOTATION];
  return typeof mark === 'string' ? mark : undefined;
}

/**
 * ownershipOf judges the live object `live` (named `externalName`) for `resource`.
 * `observeOnly` is the resource's management policy.
 */
export function ownershipOf(resource: KObject, externalName: string, live: JsonObject, observeOnly: boolean): Ownership {
  const mark = ownerMarkOf(live);
  const uid = resource.metadata.uid;
  if (uid && mark === uid) return { owned: true, why: 'Marked' };
  if (observeOnly) return { owned: true, why: 'ObserveOnly' };
  const annotations = resource.metadata.annotations ?? {};
  const namesIt = annotations[EXTERNAL_NAME_ANNOTATION] === externalName;
  if (namesIt && annotations[EXTERNAL_CREATE_PENDING_ANNOTATION] === undefined) return { owned: true, why: 'Import' };
  if (mark === undefined && namesIt && annotations[EXTERNAL_CREATE_SUCCEEDED_ANNOTATION] !== undefined) return { owned: true, why: 'CreatedBeforeMarks' };
  return { owned: false, why: mark === undefined ? 'Unmarked' : 'MarkedForAnother' };
}

/** ownedElsewhereMessage says why nothing is done, naming only what the claim chose (the object's kind and name). */
export function ownedElsewhereMessage(object: string, why: 'MarkedForAnother' | 'Unmarked'): string {
  const mark =
    why === 'Unmarked'
      ? `has no ${OWNER_UID_ANNOTATION} annotation (Conductor did not create it)`
      : `is kept by another KubernetesObject (its ${OWNER_UID_ANNOTATION} annotation names another uid)`;
  return (
    `${object} already exists in the target and ${mark}: nothing is changed or read there. ` +
    `Choose another name; or, to adopt the object, an admin sets the annotation ${EXTERNAL_NAME_ANNOTATION} to its external name (or uses managementPolicy ObserveOnly)`
  );
}

/**
 * ownFieldManager is the field manager of a KubernetesObject's applies: `conductor-<uid>`, its
 * own, so that the owner-uid annotation another KubernetesObject applied is another manager's
 * field and an unforced apply onto that object is a conflict. Without a uid: the shared
 * `FIELD_MANAGER` (`conductor`, that of earlier applies and of operator bundles).
 */
export function ownFieldManager(resource: KObject): string {
  const uid = resource.metadata.uid;
  return uid ? `${FIELD_MANAGER}-${uid}` : FIELD_MANAGER;
}

/**
 * fieldManagerFor is the manager to apply `live` with: `conductor` for an object an apply of the
 * shared manager made (before per-KubernetesObject managers), so that manager keeps being the
 * one whose fields a later manifest drops; otherwise the KubernetesObject's own.
 */
export function fieldManagerFor(resource: KObject, live: JsonObject | undefined): string {
  const meta = live && isPlainObject(live.metadata) ? live.metadata : {};
  const entries = Array.isArray(meta.managedFields) ? meta.managedFields : [];
  const shared = entries.some((e) => isPlainObject(e) && e.manager === FIELD_MANAGER && e.operation === 'Apply');
  return shared ? FIELD_MANAGER : ownFieldManager(resource);
}
