/**
 * How a provider folder writes down its concrete kinds and itself, once:
 * - `defineProviderKind` defines a concrete kind with the schema builder (CRD, ResourceRef and
 *   — through `ObjectOf` — its TypeScript type) together with the claim kinds it implements
 *   and the connection keys it publishes for each; the CRD's `conductor.io/implements`
 *   annotation and the keys sentence of its description are generated from that same list.
 * - `defineProvider` bundles the kinds with the provider's `start`, and checks that what
 *   `start` returns serves exactly the declared kinds, the same way.
 */
import type { KindDefinition } from '../apis/schema/kind.js';
import type { Shape } from '../apis/schema/builder.js';
import { defineConcreteKind, type ConcreteKindOptions } from '../apis/common/concrete.js';
import type {
  ClaimSupport,
  ConcreteKind,
  ConcreteKindDefinition,
  ExternalLifecycle,
  ProviderDefinition,
  ProviderModule,
  ProviderStartOptions,
  SharingMode,
} from './spi.js';

/** A ClaimKindSupport names a claim kind (its definition in apis/) and the keys published for it. */
export interface ClaimKindSupport {
  /** The claim kind's definition, e.g. `redisClusterKind`. */
  readonly claim: Pick<KindDefinition, 'group' | 'kind' | 'crdName'>;
  /** The keys the claim kind documents (every implementation publishes at least these). */
  readonly portableKeys: readonly string[];
  /** The keys this kind publishes: the portable ones and any of its own. */
  readonly connectionSecretKeys: readonly string[];
}

/** Names, fields and description of a concrete kind, plus how it is shared, owned and what it implements. */
export interface ProviderKindOptions<P extends Shape> extends Omit<ConcreteKindOptions<P>, 'implements' | 'sharingDefault'> {
  /** Shared kinds default `spec.sharing.mode` to Shared. */
  sharing: SharingMode;
  lifecycle: ExternalLifecycle;
  implements: readonly ClaimKindSupport[];
}

/** The sentence of a concrete kind's description that lists the keys it publishes for one claim kind. */
export function connectionKeysSentence(support: ClaimKindSupport): string {
  const portable = new Set(support.portableKeys);
  const own = support.connectionSecretKeys.filter((k) => !portable.has(k));
  const list = support.connectionSecretKeys.join(', ');
  return own.length === 0
    ? `For a ${support.claim.kind} claim it publishes the connection keys ${list}.`
    : `For a ${support.claim.kind} claim it publishes the connection keys ${list} (beyond the claim kind's, its own: ${own.join(', ')}).`;
}

/** Defines a concrete kind once; see ProviderKindOptions. Throws when it would publish less than a claim kind documents. */
export function defineProviderKind<P extends Shape>(opts: ProviderKindOptions<P>): ReturnType<typeof defineConcreteKind<P>> & ConcreteKindDefinition {
  for (const s of opts.implements) {
    const missing = s.portableKeys.filter((k) => !s.connectionSecretKeys.includes(k));
    if (missing.length > 0) {
      throw new Error(
        `${opts.kind} publishes no ${missing.join(', ')} for ${s.claim.kind} claims: an implementation publishes at least the claim kind's keys (${s.portableKeys.join(', ')})`,
      );
    }
  }
  const { sharing, lifecycle, implements: supports, ...names } = opts;
  const api = defineConcreteKind({
    ...names,
    description: [opts.description, ...supports.map(connectionKeysSentence)].join(' '),
    implements: supports.map((s) => s.claim.crdName),
    ...(sharing === 'Shared' ? { sharingDefault: { mode: 'Shared' as const } } : {}),
  });
  const implemented: ClaimSupport[] = supports.map((s) => ({
    claimKind: { group: s.claim.group, kind: s.claim.kind },
    connectionSecretKeys: s.connectionSecretKeys,
  }));
  return Object.assign(api, { sharing, lifecycle, implements: implemented });
}

/**
 * The names, sharing and lifecycle a running kind copies from its definition, so they are
 * written once: `{ ...kindNames(redisServerKind), connector, implements: [...] }`.
 */
export function kindNames(def: ConcreteKindDefinition): Pick<ConcreteKind, 'group' | 'version' | 'kind' | 'plural' | 'sharing' | 'lifecycle'> {
  return { group: def.group, version: def.version, kind: def.kind, plural: def.plural, sharing: def.sharing, lifecycle: def.lifecycle };
}

const gk = (g: { group: string; kind: string }) => `${g.group}/${g.kind}`;

/**
 * startedKindProblems compares what a provider's `start` returned with what it declared: each
 * running kind must have a definition (its CRD), with the same names, sharing, lifecycle and
 * implemented claim kinds publishing the same keys; each definition must be running.
 */
export function startedKindProblems(provider: string, declared: readonly ConcreteKindDefinition[], running: readonly ConcreteKind[]): string[] {
  const problems: string[] = [];
  const defs = new Map(declared.map((d) => [gk(d), d]));
  for (const kind of running) {
    const def = defs.get(gk(kind));
    if (!def) {
      problems.push(`provider ${provider} runs ${gk(kind)}, which it does not declare (no CRD): add its definition to the provider's kinds`);
      continue;
    }
    defs.delete(gk(kind));
    for (const field of ['version', 'plural', 'sharing', 'lifecycle'] as const) {
      if (kind[field] !== def[field]) problems.push(`provider ${provider} runs ${gk(kind)} with ${field} ${kind[field]}, but declares ${def[field]}`);
    }
    const want = new Map(def.implements.map((s) => [gk(s.claimKind), s]));
    for (const impl of kind.implements) {
      const s = want.get(gk(impl.claimKind));
      if (!s) {
        problems.push(`provider ${provider}: ${gk(kind)} implements ${gk(impl.claimKind)}, which its definition does not name`);
        continue;
      }
      want.delete(gk(impl.claimKind));
      if (impl.connectionSecretKeys.join(',') !== s.connectionSecretKeys.join(',')) {
        problems.push(
          `provider ${provider}: ${gk(kind)} publishes ${impl.connectionSecretKeys.join(', ')} for ${gk(impl.claimKind)}, but its definition says ${s.connectionSecretKeys.join(', ')}`,
        );
      }
    }
    for (const missing of want.keys()) problems.push(`provider ${provider}: ${gk(kind)} is declared to implement ${missing} but has no implementation of it`);
  }
  for (const missing of defs.keys()) problems.push(`provider ${provider} declares ${missing} but does not run it`);
  return problems;
}

/** A ProviderStartError says a provider's running kinds disagree with its declared ones. */
export class ProviderStartError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the provider's running kinds do not match its definition:\n- ${problems.join('\n- ')}`);
    this.name = 'ProviderStartError';
  }
}

/**
 * defineProvider is the value a provider folder exports; `start` is checked against `kinds`
 * (a mismatch stops what started and throws a ProviderStartError). The kinds keep their own
 * type (in-tree: KindDefinitions), so the catalog can read their schemas and refs.
 */
export function defineProvider<M extends ProviderModule, O extends ProviderStartOptions, K extends ConcreteKindDefinition>(
  def: ProviderDefinition<M, O> & { readonly kinds: readonly K[] },
): ProviderDefinition<M, O> & { readonly kinds: readonly K[] } {
  return {
    name: def.name,
    type: def.type,
    kinds: def.kinds,
    ...(def.onServerHost !== undefined ? { onServerHost: def.onServerHost } : {}),
    async start(options: O): Promise<M> {
      const module = await def.start(options);
      const problems = startedKindProblems(def.name, def.kinds, module.kinds);
      if (problems.length > 0) {
        await module.stop?.();
        throw new ProviderStartError(problems);
      }
      return module;
    },
  };
}
