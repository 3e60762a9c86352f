/**
 * The garbage collector's ownership graph: which objects have owners, and which dependents
 * each owner has. It holds one entry per object with ownerReferences (at 10,000 claims that
 * is every claim's Secret and more), so it keeps them compact: an owner link keeps only what
 * the collector reads (uid, name, type, whether it blocks owner deletion), types are shared
 * between links, an object with one owner keeps the link itself rather than an array, and an
 * owner with one dependent keeps that dependent's uid rather than a set.
 */
import type { ResourceRef } from '../../client/types.js';
import type { OwnerReference } from '../../machinery/object.js';

/** The apiVersion and kind of an owner; links to owners of one type share one. */
export interface OwnerType {
  readonly apiVersion: string;
  readonly kind: string;
}

/** What the collector keeps of one ownerReference. */
export interface OwnerLink {
  readonly uid: string;
  readonly name: string;
  readonly type: OwnerType;
  /** blockOwnerDeletion: a foreground deletion of the owner waits for this dependent. */
  readonly blocking: boolean;
}

/** An object that has owners. */
export interface Dependent {
  readonly ref: ResourceRef;
  readonly namespace: string | undefined;
  readonly name: string;
  /** One link, or several (an array of two or more). */
  readonly owners: OwnerLink | readonly OwnerLink[];
}

/** The most owner types shared; past it (ownerReferences may name anything) links get their own. */
const MAX_SHARED_TYPES = 1024;

export class OwnerGraph {
  private readonly dependents = new Map<string, Dependent>();
  /** owner uid → the uid of its one dependent, or a set of two or more. */
  private readonly byOwner = new Map<string, string | Set<string>>();
  private readonly types = new Map<string, OwnerType>();

  /** The compact links of `refs` (undefined when there are none), sharing their types. */
  linksOf(refs: readonly OwnerReference[] | undefined): OwnerLink | readonly OwnerLink[] | undefined {
    if (!refs || refs.length === 0) return undefined;
    if (refs.length === 1) return this.link(refs[0]);
    return refs.map((r) => this.link(r));
  }

  private link(r: OwnerReference): OwnerLink {
    return { uid: r.uid, name: r.name, type: this.typeOf(r.apiVersion, r.kind), blocking: r.blockOwnerDeletion === true };
  }

  private typeOf(apiVersion: string, kind: string): OwnerType {
    const key = `${apiVersion}\n${kind}`;
    let type = this.types.get(key);
    if (!type) {
      type = { apiVersion, kind };
      if (this.types.size < MAX_SHARED_TYPES) this.types.set(key, type);
    }
    return type;
  }

  get(uid: string): Dependent | undefined {
    return this.dependents.get(uid);
  }

  /** Records (or replaces) the owners of dependent `uid`. */
  set(uid: string, dep: Dependent): void {
    this.delete(uid);
    this.dependents.set(uid, dep);
    for (const o of ownersOf(dep)) {
      const have = this.byOwner.get(o.uid);
      if (have === undefined) this.byOwner.set(o.uid, uid);
      else if (typeof have === 'string') {
        if (have !== uid) this.byOwner.set(o.uid, new Set([have, uid]));
      } else have.add(uid);
    }
  }

  /** Forgets dependent `uid` (it was deleted or has no owners any more). */
  delete(uid: string): void {
    const old = this.dependents.get(uid);
    if (!old) return;
    this.dependents.delete(uid);
    for (const o of ownersOf(old)) {
      const have = this.byOwner.get(o.uid);
      if (have === undefined) continue;
      if (typeof have === 'string') {
        if (have === uid) this.byOwner.delete(o.uid);
        continue;
      }
      have.delete(uid);
      if (have.size === 1) this.byOwner.set(o.uid, have.values().next().value as string);
      else if (have.size === 0) this.byOwner.delete(o.uid);
    }
  }

  /** The uids of the dependents of owner `ownerUid` known now. */
  dependentsOf(ownerUid: string): string[] {
    const have = this.byOwner.get(ownerUid);
    if (have === undefined) return [];
    return typeof have === 'string' ? [have] : [...have];
  }
}

/** The owner links of a dependent as a list. */
export function ownersOf(dep: Pick<Dependent, 'owners'>): readonly OwnerLink[] {
  return isLinkList(dep.owners) ? dep.owners : [dep.owners];
}

function isLinkList(owners: OwnerLink | readonly OwnerLink[]): owners is readonly OwnerLink[] {
  return Array.isArray(owners);
}

/** Whether two dependents' owners are the same for the collector (same uids, names, types, blocking, in order). */
export function sameOwners(a: OwnerLink | readonly OwnerLink[], b: OwnerLink | readonly OwnerLink[]): boolean {
  const x = isLinkList(a) ? a : [a];
  const y = isLinkList(b) ? b : [b];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    const p = x[i];
    const q = y[i];
    if (p.uid !== q.uid || p.name !== q.name || p.blocking !== q.blocking || p.type.apiVersion !== q.type.apiVersion || p.type.kind !== q.type.kind)
      return false;
  }
  return true;
}
