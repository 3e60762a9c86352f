/**
 * An in-memory index of RBAC objects (Roles, ClusterRoles, RoleBindings,
 * ClusterRoleBindings), kept current by informers, so authorization decisions never read
 * the store. Bindings are indexed by subject (`User:<name>` or `Group:<name>`; a
 * ServiceAccount subject is filed under its user name `system:serviceaccount:<ns>:<name>`).
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { UserInfo } from '../rest/context.js';
import { rulesOf, type PolicyRule } from './rules.js';

/** The API group of the RBAC kinds. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** A Subject names who a binding grants to. */
export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

/** A RoleRef names the Role or ClusterRole a binding grants. */
export interface RoleRef {
  kind: string;
  name: string;
  apiGroup: string;
}

/** A Binding is a RoleBinding (namespace set) or a ClusterRoleBinding, reduced to what RBAC needs. */
export interface Binding {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  name: string;
  namespace: string;
  roleRef: RoleRef;
  subjects: Subject[];
}

/** Where a rule came from, for reasons and rule listings. */
export interface RuleSource {
  binding: Binding;
  /** The subject of the binding that matched the user. */
  subject: Subject;
  rules: readonly PolicyRule[];
}

/** The RBAC kinds the index holds. */
export type RbacKind = 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';

/** The user name a ServiceAccount authenticates as. */
export function serviceAccountUserName(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * The index key a subject is filed under, or undefined for a subject that can never match
 * (an unknown kind, or a ServiceAccount without a namespace in a ClusterRoleBinding).
 */
export function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
      return `User:${s.name}`;
    case 'Group':
      return `Group:${s.name}`;
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns ? `User:${serviceAccountUserName(ns, s.name)}` : undefined;
    }
    default:
      return undefined;
  }
}

/** The keys a user's bindings can be filed under: its name and each of its groups. */
export function userKeys(user: UserInfo): string[] {
  return [`User:${user.name}`, ...user.groups.map((g) => `Group:${g}`)];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Reads a stored binding; malformed subjects are dropped. */
export function bindingOf(obj: KObject): Binding {
  const ref = isPlainObject(obj.roleRef) ? obj.roleRef : {};
  const subjects: Subject[] = [];
  if (Array.isArray(obj.subjects)) {
    for (const s of obj.subjects) {
      if (!isPlainObject(s)) continue;
      const subject: Subject = { kind: str(s.kind), name: str(s.name) };
      if (typeof s.namespace === 'string' && s.namespace) subject.namespace = s.namespace;
      if (typeof s.apiGroup === 'string') subject.apiGroup = s.apiGroup;
      subjects.push(subject);
    }
  }
  return {
    kind: obj.kind === 'ClusterRoleBinding' ? 'ClusterRoleBinding' : 'RoleBinding',
    name: obj.metadata.name ?? '',
    namespace: obj.metadata.namespace ?? '',
    roleRef: { kind: str(ref.kind), name: str(ref.name), apiGroup: str(ref.apiGroup) },
    subjects,
  };
}

/**
 * An RbacIndex holds the current RBAC objects. `set` and `remove` are called by informers
 * (or tests); the query methods are synchronous and touch only memory.
 */
export class RbacIndex {
  private readonly roles = new Map<string, PolicyRule[]>();
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  private readonly bindings = new Map<string, Binding>();
  /** namespace ('' for ClusterRoleBindings) → subject key → binding keys. */
  private readonly bySubject = new Map<string, Map<string, Set<string>>>();

  /** Adds or replaces an object of one of the RBAC kinds. */
  set(kind: RbacKind, obj: KObject): void {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    switch (kind) {
      case 'Role':
        this.roles.set(`${ns}/${name}`, rulesOf(obj));
        return;
      case 'ClusterRole':
        this.clusterRoles.set(name, rulesOf(obj));
        return;
      case 'RoleBinding':
      case 'ClusterRoleBinding': {
        const b = bindingOf({ ...obj, kind });
        const key = bindingKey(b);
        this.unfile(key);
        this.bindings.set(key, b);
        this.file(key, b);
        return;
      }
    }
  }

  /** Removes an object of one of the RBAC kinds. */
  remove(kind: RbacKind, obj: KObject): void {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    switch (kind) {
      case 'Role':
        this.roles.delete(`${ns}/${name}`);
        return;
      case 'ClusterRole':
        this.clusterRoles.delete(name);
        return;
      case 'RoleBinding':
      case 'ClusterRoleBinding': {
        const key = bindingKey({ kind, namespace: kind === 'RoleBinding' ? ns : '', name });
        this.unfile(key);
        this.bindings.delete(key);
        return;
      }
    }
  }

  /** The rules of a Role (namespace set) or ClusterRole, or undefined when it does not exist. */
  roleRules(kind: string, name: string, namespace: string): readonly PolicyRule[] | undefined {
    if (kind === 'ClusterRole') return this.clusterRoles.get(name);
    if (kind === 'Role') return this.roles.get(`${namespace}/${name}`);
    return undefined;
  }

  /**
   * Calls `visit` with the rules the user holds: ClusterRoleBindings first, then (when
   * `namespace` is set) the RoleBindings of that namespace. Stops when `visit` returns false.
   */
  visitRules(user: UserInfo, namespace: string, visit: (src: RuleSource) => boolean): void {
    const keys = userKeys(user);
    const scopes = namespace ? ['', namespace] : [''];
    for (const scope of scopes) {
      const bySubject = this.bySubject.get(scope);
      if (!bySubject) continue;
      const seen = new Set<string>();
      for (const k of keys) {
        for (const bk of bySubject.get(k) ?? []) {
          if (seen.has(bk)) continue;
          seen.add(bk);
          const b = this.bindings.get(bk);
          if (!b) continue;
          const rules = this.roleRules(b.roleRef.kind, b.roleRef.name, b.namespace);
          if (!rules) continue;
          const subject = b.subjects.find((s) => subjectKey(s, b.namespace) === k) ?? b.subjects[0];
          if (!visit({ binding: b, subject, rules })) return;
        }
      }
    }
  }

  /** Every rule the user holds in `namespace` (cluster-wide ones included). */
  rulesFor(user: UserInfo, namespace: string): PolicyRule[] {
    const out: PolicyRule[] = [];
    this.visitRules(user, namespace, (src) => {
      out.push(...src.rules);
      return true;
    });
    return out;
  }

  private file(key: string, b: Binding): void {
    let bySubject = this.bySubject.get(b.namespace);
    if (!bySubject) this.bySubject.set(b.namespace, (bySubject = new Map<string, Set<string>>()));
    for (const s of b.subjects) {
      const k = subjectKey(s, b.namespace);
      if (k === undefined) continue;
      let set = bySubject.get(k);
      if (!set) bySubject.set(k, (set = new Set()));
      set.add(key);
    }
  }

  private unfile(key: string): void {
    const b = this.bindings.get(key);
    if (!b) return;
    const bySubject = this.bySubject.get(b.namespace);
    if (!bySubject) return;
    for (const s of b.subjects) {
      const k = subjectKey(s, b.namespace);
      if (k === undefined) continue;
      const set = bySubject.get(k);
      set?.delete(key);
      if (set?.size === 0) bySubject.delete(k);
    }
    if (bySubject.size === 0) this.bySubject.delete(b.namespace);
  }
}

function bindingKey(b: Pick<Binding, 'kind' | 'namespace' | 'name'>): string {
  return b.kind === 'ClusterRoleBinding' ? `/${b.name}` : `${b.namespace}/${b.name}`;
}
