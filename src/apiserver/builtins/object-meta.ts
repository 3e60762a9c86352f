/**
 * Validation of ObjectMeta shared by every kind: name and namespace rules, labels,
 * annotations, finalizers, owner references, and the fields that may not change on update.
 * Field paths and messages follow Kubernetes (`metadata.name: Invalid value: ...`).
 */
import type { KObject, ObjectMeta } from '../../machinery/object.js';
import { deepEqual, isPlainObject, parseApiVersion } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import type { ResourceType } from '../registry/resource-type.js';
import { child, forbidden, immutable, index, invalid, required } from './field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPathSegmentName, validateAnnotations, validateLabels } from './names.js';

/** How a kind's names are checked. */
export type NameFormat = 'subdomain' | 'label' | 'path-segment';

export interface ObjectMetaOptions {
  /** True for namespaced kinds: metadata.namespace is then required, else forbidden. */
  namespaced: boolean;
  nameFormat: NameFormat;
  /**
   * Core-group rule for finalizers: a finalizer without a '/' must be one of the standard
   * names (kubernetes, orphan, foregroundDeletion). Off by default.
   */
  standardFinalizersOnly?: boolean;
}

/** The finalizer names Kubernetes defines without a domain prefix. */
export const standardFinalizers: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

const rbacGroup = 'rbac.authorization.k8s.io';

/**
 * The ObjectMeta rules for a served type: namespaces use DNS labels, RBAC kinds path
 * segments, everything else DNS subdomains; core-group kinds and Leases use the stricter
 * finalizer rule, as Kubernetes does.
 */
export function objectMetaOptionsFor(rt: Pick<ResourceType, 'group' | 'kind' | 'namespaced' | 'source'>): ObjectMetaOptions {
  const builtin = rt.source.type === 'builtin';
  let nameFormat: NameFormat = 'subdomain';
  if (builtin && rt.group === '' && rt.kind === 'Namespace') nameFormat = 'label';
  else if (builtin && rt.group === rbacGroup) nameFormat = 'path-segment';
  const standardFinalizersOnly = builtin && (rt.group === '' || rt.group === 'coordination.k8s.io');
  return { namespaced: rt.namespaced, nameFormat, standardFinalizersOnly };
}

function nameProblems(name: string, format: NameFormat): string[] {
  switch (format) {
    case 'subdomain':
      return isDNS1123Subdomain(name);
    case 'label':
      return isDNS1123Label(name);
    case 'path-segment':
      return isValidPathSegmentName(name);
    default: {
      const never: never = format;
      throw new Error(`unknown name format ${String(never)}`);
    }
  }
}

/** A generateName is a prefix: a trailing '-' is fine because a suffix follows it. */
function prefixProblems(prefix: string, format: NameFormat): string[] {
  if (format === 'path-segment') return isValidPathSegmentName(prefix);
  const masked = prefix.endsWith('-') ? `${prefix.slice(0, -1)}a` : prefix;
  return nameProblems(masked, format);
}

const path = 'metadata';

/** Problems with an object's metadata; empty when it is valid. */
export function validateObjectMeta(obj: KObject, opts: ObjectMetaOptions): StatusCause[] {
  const meta: ObjectMeta = isPlainObject(obj.metadata) ? obj.metadata : {};
  const causes: StatusCause[] = [];
  const namePath = child(path, 'name');

  if (typeof meta.generateName === 'string' && meta.generateName !== '') {
    for (const m of prefixProblems(meta.generateName, opts.nameFormat)) {
      causes.push(invalid(child(path, 'generateName'), meta.generateName, m));
    }
  }
  if (typeof meta.name !== 'string' || meta.name === '') {
    causes.push(required(namePath, 'name or generateName is required'));
  } else {
    for (const m of nameProblems(meta.name, opts.nameFormat)) causes.push(invalid(namePath, meta.name, m));
  }

  const nsPath = child(path, 'namespace');
  const ns = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (opts.namespaced) {
    if (ns === '') causes.push(required(nsPath));
    else for (const m of isDNS1123Label(ns)) causes.push(invalid(nsPath, ns, m));
  } else if (ns !== '') {
    causes.push(forbidden(nsPath, 'not allowed on this type'));
  }

  if (typeof meta.generation === 'number' && meta.generation < 0) {
    causes.push(invalid(child(path, 'generation'), meta.generation, 'must be greater than or equal to 0'));
  }
  causes.push(...validateLabels(meta.labels, child(path, 'labels')));
  causes.push(...validateAnnotations(meta.annotations, child(path, 'annotations')));
  if (Array.isArray(meta.finalizers)) causes.push(...validateFinalizers(meta.finalizers, child(path, 'finalizers'), !!opts.standardFinalizersOnly));
  if (Array.isArray(meta.ownerReferences)) causes.push(...validateOwnerReferences(meta.ownerReferences, child(path, 'ownerReferences')));
  return causes;
}

/**
 * Problems with a list of finalizer names: each must be a qualified name, and `orphan`
 * and `foregroundDeletion` exclude each other. With `standardOnly`, a name without a
 * domain prefix must be one of the standard finalizers.
 */
export function validateFinalizers(finalizers: unknown[], fieldPath: string, standardOnly: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  finalizers.forEach((f, i) => {
    if (typeof f !== 'string') return;
    causes.push(...validateFinalizerName(f, index(fieldPath, i), standardOnly));
  });
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    causes.push(invalid(fieldPath, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return causes;
}

/** Problems with one finalizer name. */
export function validateFinalizerName(name: string, fieldPath: string, standardOnly: boolean): StatusCause[] {
  const causes = isQualifiedName(name).map((m) => invalid(fieldPath, name, m));
  if (standardOnly && !name.includes('/') && !standardFinalizers.has(name)) {
    causes.push(invalid(fieldPath, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return causes;
}

/** Problems with owner references: each names apiVersion, kind, name and uid; at most one is the controller. */
export function validateOwnerReferences(refs: unknown[], fieldPath: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let firstController = '';
  refs.forEach((raw, i) => {
    const p = index(fieldPath, i);
    if (!isPlainObject(raw)) {
      causes.push(invalid(p, raw, 'must be an object'));
      return;
    }
    const apiVersion = typeof raw.apiVersion === 'string' ? raw.apiVersion : '';
    const kind = typeof raw.kind === 'string' ? raw.kind : '';
    const name = typeof raw.name === 'string' ? raw.name : '';
    const uid = typeof raw.uid === 'string' ? raw.uid : '';
    const gv = parseApiVersion(apiVersion);
    if (gv.version === '') causes.push(invalid(child(p, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (kind === '') causes.push(invalid(child(p, 'kind'), kind, 'must not be empty'));
    if (name === '') causes.push(invalid(child(p, 'name'), name, 'must not be empty'));
    if (uid === '') causes.push(invalid(child(p, 'uid'), uid, 'must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      causes.push(invalid(p, raw, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (raw.controller === true) {
      const current = `${kind}/${name}`;
      if (firstController) {
        causes.push(
          invalid(fieldPath, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      } else {
        firstController = current;
      }
    }
  });
  return causes;
}

/**
 * Problems with a metadata change: name, namespace, uid, creationTimestamp and the
 * deletion fields are immutable, generation never goes down, and an object being deleted
 * takes no new finalizers.
 */
export function validateObjectMetaUpdate(next: KObject, old: KObject): StatusCause[] {
  const n: ObjectMeta = isPlainObject(next.metadata) ? next.metadata : {};
  const o: ObjectMeta = isPlainObject(old.metadata) ? old.metadata : {};
  const causes: StatusCause[] = [];
  const fields = ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const;
  for (const f of fields) {
    // An absent value and an empty string are the same to Kubernetes clients.
    const nv = n[f] === '' ? undefined : n[f];
    const ov = o[f] === '' ? undefined : o[f];
    if (!deepEqual(nv, ov)) causes.push(immutable(child(path, f), nv ?? ''));
  }
  if (typeof n.generation === 'number' && typeof o.generation === 'number' && n.generation < o.generation) {
    causes.push(invalid(child(path, 'generation'), n.generation, 'must not be decremented'));
  }
  if (o.deletionTimestamp) {
    const before = new Set(Array.isArray(o.finalizers) ? o.finalizers : []);
    const added = (Array.isArray(n.finalizers) ? n.finalizers : []).filter((f) => !before.has(f));
    if (added.length > 0) {
      const list = [...new Set(added)]
        .sort()
        .map((f) => JSON.stringify(f))
        .join(', ');
      causes.push(
        forbidden(child(path, 'finalizers'), `no new finalizers can be added if the object is being deleted, found new finalizers []string{${list}}`),
      );
    }
  }
  return causes;
}
