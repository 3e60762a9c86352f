/**
 * Kinds served from their CRDs alone (docs/design.md 3.1, 3.7): claim kinds added by a CRD
 * labelled `conductor.io/abstract`, and concrete kinds that a provider running in another
 * process registers as CRDs annotated `conductor.io/implements` and reconciles through the
 * API. `crdDefinedKinds` reads the CRDs installed and says which of them the claim controller
 * serves beside the built-in kinds, and which cannot be served and why.
 *
 * An out-of-process concrete kind serves one claim per resource (Exclusive): the core binds
 * (`spec.claimRef`), provisions from class templates, publishes the connection details its
 * controller writes into the resource's Secret, and applies Retain and Delete on release. What
 * needs code in Conductor — a claim's own share of a Shared resource, scrubbing for Recycle —
 * it does not offer.
 */
import { claimKindOfCrd, concreteKindOfCrd, type CrdClaimKind, type CrdConcreteKind } from '../../apis/index.js';
import type { ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import type { ConcreteKind, Connector } from '../../providers/spi.js';
import { kindKey } from './claim-caches.js';
import { genericImplementation } from './generic-implementation.js';

/** An out-of-process concrete kind: the ConcreteKind the claim controller works with, and the Client's handle. */
export interface OutOfProcessKind {
  readonly kind: ConcreteKind;
  readonly ref: ResourceRef;
  /** What it was read from. */
  readonly source: CrdConcreteKind;
  /** Everything it was built from (its CRD's and its claim kinds'), as text: when it changes, the kind is replaced. */
  readonly fingerprint: string;
}

/** The kinds to serve from CRDs, and what cannot be served. */
export interface CrdDefinedKinds {
  /** Claim kinds that are not built in. */
  readonly claimKinds: readonly CrdClaimKind[];
  readonly concreteKinds: readonly OutOfProcessKind[];
  /** Why a CRD's kind (or one of its implementations) is not served, for the log. */
  readonly problems: readonly string[];
}

/** The kinds the process serves with code, by `kindKey`: CRDs of these are not read. */
export interface BuiltInKinds {
  readonly claimKinds: ReadonlySet<string>;
  readonly concreteKinds: ReadonlySet<string>;
}

/** An OutOfProcessKindError is a connect to a kind whose provider runs elsewhere: Conductor holds no client for it. */
export class OutOfProcessKindError extends Error {
  constructor(kind: string) {
    super(`${kind} is reconciled by a provider outside Conductor, which has no client for it; that provider acts on the resource through the API`);
    this.name = 'OutOfProcessKindError';
  }
}

function outOfProcessConnector(kind: string): Connector {
  return {
    connect: () => Promise.reject(new OutOfProcessKindError(kind)),
  };
}

/** crdDefinedKinds reads the installed CRDs: the claim and concrete kinds to serve beyond the built-in ones. */
export function crdDefinedKinds(crds: readonly KObject[], builtIn: BuiltInKinds): CrdDefinedKinds {
  const problems: string[] = [];
  const claimsByCrd = new Map<string, CrdClaimKind>();
  for (const crd of crds) {
    const read = claimKindOfCrd(crd);
    if (read.type === 'invalid') problems.push(`${read.why}; its claims are not scheduled until the CRD is fixed`);
    if (read.type === 'kind') claimsByCrd.set(read.kind.crdName, read.kind);
  }
  const claimKinds = [...claimsByCrd.values()].filter((k) => !builtIn.claimKinds.has(kindKey(k.group, k.kind)));
  const concreteKinds: OutOfProcessKind[] = [];
  for (const crd of crds) {
    const read = concreteKindOfCrd(crd);
    if (read.type === 'none') continue;
    if (read.type === 'invalid') {
      problems.push(`${read.why}; no claim is bound to its resources until the CRD is fixed`);
      continue;
    }
    const source = read.kind;
    if (builtIn.concreteKinds.has(kindKey(source.group, source.kind))) continue;
    const used: CrdClaimKind[] = [];
    const implementations = source.implements.flatMap((crdName) => {
      const claim = claimsByCrd.get(crdName);
      if (!claim) {
        problems.push(
          `concrete kind ${source.crdName} implements ${crdName}, which is not a served claim kind (no Established CRD of that name labelled conductor.io/abstract: "true"); ` +
            'claims of that kind are not bound to its resources',
        );
        return [];
      }
      used.push(claim);
      return [
        genericImplementation({
          claimKind: { group: claim.group, kind: claim.kind },
          claimKeys: claim.connectionKeys,
          concreteKind: source.kind,
          extraKeys: source.connectionKeys,
          specFields: source.specFields,
        }),
      ];
    });
    if (implementations.length === 0) continue;
    concreteKinds.push({
      source,
      fingerprint: JSON.stringify([
        source.ref,
        source.connectionKeys,
        source.specFields === undefined ? null : [...source.specFields].sort(),
        used.map((c) => [c.group, c.kind, c.connectionKeys]),
      ]),
      ref: source.ref,
      kind: {
        group: source.group,
        version: source.version,
        kind: source.kind,
        plural: source.plural,
        sharing: 'Exclusive',
        lifecycle: 'Managed',
        deterministicExternalNames: false,
        implements: implementations,
        connector: outOfProcessConnector(source.kind),
      },
    });
  }
  return { claimKinds, concreteKinds, problems };
}
