/**
 * Which kinds the claim controller serves: every claim kind of the catalog, and every
 * concrete kind of the installed providers — each with the kind definition (CRD, Client
 * ref) it is watched and written through. A provider kind with no definition, or one that
 * implements a claim kind with none, cannot be served: the controller refuses to start and
 * says which kind and what to do, rather than leaving its claims Pending with no word.
 */
import type { KindDefinition } from '../../apis/index.js';
import type { ConcreteKind, GroupKind } from '../../providers/spi.js';

/** A concrete kind of a provider, with the definition it is served through. */
export interface ServedConcreteKind {
  readonly kind: ConcreteKind;
  readonly def: KindDefinition;
}

/** The kinds the claim controller serves. */
export interface ServedKinds {
  readonly claims: readonly Pick<KindDefinition, 'group' | 'version' | 'kind' | 'ref'>[];
  readonly concretes: readonly ServedConcreteKind[];
}

/** An UnservedKindError says which provider kinds have no kind definition, and what to do. */
export class UnservedKindError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `the claim controller cannot serve ${problems.length === 1 ? 'a kind' : `${problems.length} kinds`}: ${problems.join('; ')}. ` +
        'Define each kind with the provider (its CRD and Client ref come from that definition), or remove it from the provider module',
    );
    this.name = 'UnservedKindError';
  }
}

/** A KindLookup finds the definition of `group`/`kind` (kind matched case-insensitively). */
export type KindLookup = (group: string, kind: string) => KindDefinition | undefined;

/**
 * servedKinds pairs each provider kind with its definition and checks that every claim kind
 * it implements is one of `claimDefs`; it throws an UnservedKindError listing every kind that
 * cannot be served.
 */
/** A KindCatalog is what the claim controller is told of the catalog (by the composition root). */
export interface KindCatalog {
  /** Every claim kind served. */
  readonly claimKinds: readonly KindDefinition[];
  /** The definition of any kind served. */
  readonly findKind: KindLookup;
}

export function servedKinds(concreteKinds: readonly ConcreteKind[], lookup: KindLookup, claimDefs: readonly KindDefinition[]): ServedKinds {
  const problems: string[] = [];
  const concretes: ServedConcreteKind[] = [];
  const isClaimKind = (gk: GroupKind) => claimDefs.some((d) => d.group === gk.group && d.kind.toLowerCase() === gk.kind.toLowerCase());
  for (const kind of concreteKinds) {
    const def = lookup(kind.group, kind.kind);
    if (!def) {
      problems.push(
        `concrete kind ${kind.kind} (${kind.group}) has no kind definition, so no CRD is installed for it and its resources can be neither watched nor bound`,
      );
      continue;
    }
    for (const impl of kind.implements) {
      if (!isClaimKind(impl.claimKind)) {
        problems.push(
          `concrete kind ${kind.kind} (${kind.group}) implements ${impl.claimKind.kind} (${impl.claimKind.group}), which has no claim kind definition, so such claims can never be made or scheduled`,
        );
      }
    }
    concretes.push({ kind, def });
  }
  if (problems.length > 0) throw new UnservedKindError(problems);
  return { claims: claimDefs, concretes };
}
