/**
 * SecretReferenceCheck (validating admission): an object that names a Secret for a
 * controller to read or write — a Provider's `credentialsSecretRef`, a shared server's
 * `adminCredentialsSecretRef`, any `…SecretRef`, `secretRef` or `writeConnectionSecretToRef`
 * of a concrete resource, a claim, or a ResourceClass's template — makes the controllers use
 * that Secret with their own rights. So the writer must hold those rights themselves: for
 * every reference that is new or changed, the API server's authorizer is asked whether the
 * requesting user may `get` that Secret (`create` for a Secret written to), exactly as a
 * SubjectAccessReview for that user would answer. Otherwise an infrastructure admin could
 * point a shared server at a tenant's Secret and read it back from the error messages.
 *
 * References name a Secret in the object's own namespace (conductor-system for a
 * cluster-scoped object); a reference that carries another `namespace` is invalid (422).
 * A ResourceClass's template is checked in the class's namespace and in conductor-system,
 * where resources provisioned from it may live.
 */
import { ApiError, errors } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { deepEqual, isPlainObject } from '../../machinery/object.js';
import type { AdmissionAttributes, ValidatingPlugin } from '../admission/types.js';
import type { UserInfo } from '../rest/context.js';
import { CREDENTIALS_NAMESPACE } from './bootstrap-policy.js';
import type { AuthorizationAttributes, Authorizer } from './types.js';

const CORE_GROUP = 'core.conductor.io';
/** Categories of the kinds whose controllers read Secrets named in their spec. */
const CHECKED_CATEGORIES = ['managed', 'claim'];

/** A SecretReference found in an object: where it is, which Secret, and what is done with it. */
export interface SecretReference {
  /** The field path, e.g. `spec.adminCredentialsSecretRef`. */
  field: string;
  name: string;
  /** The namespace the reference itself names, when it does. */
  namespace?: string;
  /** `get` for a Secret a controller reads, `create` for one it writes. */
  verb: 'get' | 'create';
  /** The whole reference, to tell whether an update changed it. */
  ref: Record<string, unknown>;
}

/** Whether a field name is a reference to a Secret (and to one that is written). */
function referenceKind(key: string): 'get' | 'create' | undefined {
  if (/^write[A-Za-z]*SecretToRef$/.test(key)) return 'create';
  if (/secretref$/i.test(key)) return 'get';
  return undefined;
}

/** secretReferences finds every Secret reference under `value` (at any depth), with its field path. */
export function secretReferences(value: unknown, path: string): SecretReference[] {
  const out: SecretReference[] = [];
  const walk = (v: unknown, at: string) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${at}[${i}]`));
      return;
    }
    if (!isPlainObject(v)) return;
    for (const [k, child] of Object.entries(v)) {
      const field = `${at}.${k}`;
      const verb = referenceKind(k);
      if (verb && isPlainObject(child) && typeof child['name'] === 'string' && child['name'] !== '') {
        const ns = typeof child['namespace'] === 'string' && child['namespace'] !== '' ? child['namespace'] : undefined;
        out.push({ field, name: child['name'], ...(ns ? { namespace: ns } : {}), verb, ref: child });
        continue;
      }
      walk(child, field);
    }
  };
  walk(value, path);
  return out;
}

export class SecretReferenceCheck implements ValidatingPlugin {
  readonly name = 'SecretReferences';

  /**
   * `isClaim` tells claim kinds that are not in the `claim` category (a CRD labelled
   * `conductor.io/abstract: "true"` is one, docs/design.md 3.1); without it only categories count.
   */
  constructor(
    private readonly authorizer: Authorizer,
    private readonly isClaim?: (rt: AdmissionAttributes['rt']) => Promise<boolean>,
  ) {}

  private inCheckedCategory(a: AdmissionAttributes): boolean {
    if (a.rt.group === CORE_GROUP && (a.rt.resource === 'providers' || a.rt.resource === 'resourceclasses')) return true;
    return a.rt.categories.some((c) => CHECKED_CATEGORIES.includes(c));
  }

  handles(a: AdmissionAttributes): boolean {
    if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || a.subresource !== '' || !isPlainObject(a.object)) return false;
    if (this.inCheckedCategory(a)) return true;
    // Perhaps a claim kind known by its label only; validate asks.
    return this.isClaim !== undefined && a.rt.namespaced && a.rt.source?.type === 'crd';
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (!this.inCheckedCategory(a) && !(await this.isClaim?.(a.rt))) return;
    const isClass = a.rt.group === CORE_GROUP && a.rt.resource === 'resourceclasses';
    const refsOf = (obj: KObject | undefined): SecretReference[] => {
      if (!obj) return [];
      if (isClass) return isPlainObject(obj.template) ? secretReferences(obj.template['spec'], 'template.spec') : [];
      return secretReferences(obj.spec, 'spec');
    };
    const before = refsOf(a.oldObject);
    const own = a.rt.namespaced ? (a.namespace ?? '') : CREDENTIALS_NAMESPACE;
    const where = isClass ? [...new Set([own, CREDENTIALS_NAMESPACE])] : [own];
    const invalid: Array<{ field: string; message: string }> = [];
    const denied: string[] = [];
    for (const ref of refsOf(a.object)) {
      // An update that leaves a reference exactly as it was asks for nothing new.
      if (before.some((b) => b.field === ref.field && deepEqual(b.ref, ref.ref))) continue;
      if (ref.namespace !== undefined && !where.includes(ref.namespace)) {
        invalid.push({
          field: `${ref.field}.namespace`,
          message: `Invalid value: "${ref.namespace}": a Secret reference may only name a Secret in the namespace of the ${a.rt.kind} ("${own}")`,
        });
        continue;
      }
      for (const ns of where) {
        const attrs = secretAttributes(a.ctx.user, ref.verb, ns, ref.name);
        const decision = await this.authorizer.authorize(attrs);
        if (!decision.allowed)
          denied.push(`${ref.field} names Secret "${ref.name}" in namespace "${ns}", and User "${a.ctx.user.name}" cannot ${ref.verb} secrets there`);
      }
    }
    if (invalid.length > 0) {
      throw new ApiError(422, 'Invalid', `${a.rt.kind} "${a.name}" is invalid: ${invalid.map((i) => `${i.field}: ${i.message}`).join(', ')}`, {
        name: a.name,
        group: a.rt.group,
        kind: a.rt.kind,
        causes: invalid.map((i) => ({ reason: 'FieldValueInvalid', message: i.message, field: i.field })),
      });
    }
    if (denied.length > 0) {
      const res = a.rt.group ? `${a.rt.resource}.${a.rt.group}` : a.rt.resource;
      throw errors.forbidden(
        `${res} "${a.name}" is forbidden: ${denied.join('; ')} (a controller would use that Secret with its own rights on the author's behalf)`,
        { group: a.rt.group, resource: a.rt.resource },
        a.name,
      );
    }
  }
}

function secretAttributes(user: UserInfo, verb: string, namespace: string, name: string): AuthorizationAttributes {
  return {
    user,
    verb,
    resourceRequest: true,
    group: '',
    version: 'v1',
    resource: 'secrets',
    subresource: '',
    namespace,
    name: verb === 'create' ? '' : name,
    path: '',
  };
}
