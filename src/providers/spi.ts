/**
 * The provider SPI (docs/design.md 3.7): what a provider module hands the core so that claims
 * can be matched to, provisioned as, and connected through its concrete kinds.
 *
 * A provider module exports its concrete kinds; each kind says which claim kinds it
 * implements (a matcher, a configurator and a connection formatter per claim kind) and
 * carries a connector that returns an external client for one resource. Every call of an
 * external client is idempotent: the controllers may repeat any call after a crash, so a
 * call finds the state a previous attempt left behind and finishes the job instead of
 * failing or doing it twice.
 *
 * These types depend on machinery only, so out-of-tree providers and the controllers can
 * share them without importing each other.
 */
import { isPlainObject, type JsonObject, type KObject } from '../machinery/object.js';

export { boundedRetryAfter, MAX_RETRY_AFTER_SECONDS, retryAfterSecondsOf, retryingIn, type RetryAfterHint } from './retry-after.js';

/** A ProviderType names the family of a provider (a `Provider` object's `spec.type`). */
export type ProviderType = 'local' | 'memory' | 'kubernetes' | 'gcp' | 'azure' | 'aws';

/** A RebindPolicy says what happens to a resource (or a claim's share of one) on release. */
export type RebindPolicy = 'Retain' | 'Delete' | 'Recycle';

/** A SharingMode says whether one resource serves one claim or several. */
export type SharingMode = 'Exclusive' | 'Shared';

/**
 * An ExternalLifecycle says who owns the external thing behind a resource: `Managed`
 * resources are created and deleted by their provider; `Registered` ones (a shared server
 * an admin registers) exist independently, so `create` only verifies them, `delete` only
 * forgets them, and the reconciler does not wait for them to disappear.
 */
export type ExternalLifecycle = 'Managed' | 'Registered';

/** A GroupKind names a kind independently of its version. */
export interface GroupKind {
  group: string;
  kind: string;
}

/** A ClaimRef identifies a claim; enough to find what was created for it. */
export interface ClaimRef {
  namespace: string;
  name: string;
  uid?: string;
}

/** A SecretRef names a Secret the controller reads on a connector's behalf. */
export interface SecretRef {
  namespace: string;
  name: string;
}

/**
 * ConnectionDetails are the string values an application needs to reach what it claimed.
 * A provider's raw details become the claim kind's documented keys through the claim
 * implementation's `formatConnection`.
 */
export type ConnectionDetails = Record<string, string>;

/** A MatchResult is the verdict of a matcher: it fits, or it does not and says why. */
export type MatchResult = { fits: true } | { fits: false; reason: string };

/** The MatchResult of a candidate that fits. */
export const fits: MatchResult = Object.freeze({ fits: true });

/** doesNotFit builds the MatchResult of a candidate that fails, with the reason shown to users. */
export function doesNotFit(reason: string): MatchResult {
  return { fits: false, reason };
}

/**
 * A ResourceTemplate is a ResourceClass's `template`: the concrete resource it creates on
 * dynamic provisioning.
 */
export interface ResourceTemplate {
  apiVersion: string;
  kind: string;
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: JsonObject;
}

/**
 * A MatchCandidate is what a matcher judges a claim against: an existing concrete resource,
 * or a resource class (a virtual candidate that would create one from its template).
 */
export type MatchCandidate<R extends KObject = KObject> =
  { type: 'resource'; resource: R } | { type: 'class'; resourceClass: KObject; template: ResourceTemplate };

/**
 * A ClaimImplementation describes how one concrete kind implements one claim kind: the
 * claim-specific half of scheduling and provisioning.
 */
export interface ClaimImplementation<R extends KObject = KObject> {
  /** The claim kind implemented, e.g. storage.conductor.io/PostgreSQLInstance. */
  readonly claimKind: GroupKind;
  /** The documented, stable keys of the claim kind's connection secret. */
  readonly connectionSecretKeys: readonly string[];
  /**
   * A matcher decides whether a candidate can serve the claim's portable configuration
   * (version range, user name, ...). Generic requirements (capacity, region, cost, phase)
   * are the scheduler's business, not the matcher's. Pure and synchronous.
   */
  match(claim: KObject, candidate: MatchCandidate<R>): MatchResult;
  /**
   * A configurator turns a class template into the spec of a new concrete resource for the
   * claim: the template's spec with the claim's portable fields and requirements written
   * over it. The provisioner adds the common concrete fields (claimRef, providerRef,
   * rebindPolicy, resourceClass) afterwards. Pure; must not modify its arguments.
   */
  configure(claim: KObject, template: ResourceTemplate): JsonObject;
  /**
   * A connection formatter turns the raw details an external client returned into exactly
   * the claim kind's documented keys; it throws when a required detail is missing.
   */
  formatConnection(details: ConnectionDetails): ConnectionDetails;
  /**
   * price says what the candidate would cost a month for this claim — a class: the resource
   * its template would become for the claim (the size the claim asks, the template's region
   * or the one in `context`); a resource: what it advertises — or why there is no price.
   * The scheduler's Cost filter and LowestCost score compare these across kinds and clouds;
   * a class's `conductor.io/monthly-cost` annotation wins over it. Pure, synchronous and
   * cheap: it is called once per (candidate, claim kind, capacity, region). A kind without
   * it has no price unless its class states one.
   */
  price?(claim: KObject, candidate: MatchCandidate<R>, context: PriceContext): MonthlyPrice | NoPrice;
}

/** A MonthlyPrice is what a resource costs a month, with how it was worked out. */
export interface MonthlyPrice {
  /** The amount, rounded up to cents, as a decimal string ("2.30"). */
  amount: string;
  /** An ISO 4217 code ("USD"). */
  currency: string;
  /** How: "100 GB × 0.023 USD/GB-month (us-east-1, S3 Standard)". */
  basis: string;
  /** The table's date and source ("2024-06-01, unverified; https://…"). */
  table: string;
}

/** A price that cannot be worked out, and why (no region, no size, not in the table, priced per request). */
export interface NoPrice {
  amount?: undefined;
  reason: string;
}

/** A PriceContext is what a price depends on besides the claim and the candidate. */
export interface PriceContext {
  /** The Provider the resource is (or would be) made with, when known: its spec.region is the region when the resource states none. */
  provider?: KObject;
  /** The region the candidate advertises (a class's capabilities, or the Provider a placed class targets). */
  region?: string;
}

/** An ExternalObservation is what `observe` learned about the external resource. */
export interface ExternalObservation {
  /** Whether the external resource exists at all; false makes the reconciler call `create`. */
  exists: boolean;
  /** Whether it matches the desired state; false (with `exists`) makes it call `update`. */
  upToDate: boolean;
  /** Observed external state, written to `status.atProvider`. */
  atProvider?: JsonObject;
  /** Details to publish for the resource (exclusive kinds: the claim's credentials). */
  connectionDetails?: ConnectionDetails;
  /** What differs from the desired state, for conditions and events, when not up to date. */
  drift?: string;
  /**
   * The external resource exists and matches the spec but cannot be used yet (an operator
   * still provisioning what it asked for, a server not answering yet): the resource is
   * Ready=False with this CamelCase reason and message, and looked at again within seconds.
   * Left out when it is ready.
   */
  notReady?: { reason: string; message: string };
  /**
   * Shared kinds: bound claims whose share (database, user, bucket...) lacks something. These
   * do not make the resource out of date and `update` does not repair them: the claim
   * controller does, through `bindClaim`, when the reconciler publishes them in
   * `status.atProvider.brokenShares` — it owns each share's lifecycle, so a share being
   * dropped by a release is never recreated behind its back.
   */
  brokenShares?: BrokenShare[];
}

/** A BrokenShare is one bound claim's share found lacking by `observe`. */
export interface BrokenShare {
  claim: ClaimRef;
  /** What is missing, for people: "database and user". */
  missing: string;
}

/** An ExternalCreation is what `create` reports. */
export interface ExternalCreation {
  /** The external identity, stored in the `conductor.io/external-name` annotation. */
  externalName?: string;
  connectionDetails?: ConnectionDetails;
}

/** An ExternalUpdate is what `update` reports. */
export interface ExternalUpdate {
  connectionDetails?: ConnectionDetails;
}

/** A DiscoveredResource is an external resource a provider found and could register. */
export interface DiscoveredResource {
  /** The external identity (`conductor.io/external-name`). */
  externalName: string;
  /** A suggested namespace and name for the concrete resource that would represent it. */
  namespace?: string;
  name: string;
  /** The provider-specific spec that describes it as a concrete resource. */
  spec: JsonObject;
  atProvider?: JsonObject;
}

/**
 * CallOptions come with every call of an external client (and, as `ConnectContext.signal`,
 * with `connect`).
 */
export interface CallOptions {
  /**
   * Aborted when the caller stops waiting: the call's deadline passed, or Conductor is
   * shutting down. A provider stops what can take long — waiting for a server, connecting,
   * queries, polling, child processes it started for the call (killed) — and rejects soon
   * after with `signal.reason` (or another error whose name is `AbortError`). Work already
   * done stays: every call is idempotent, so the next attempt finishes it.
   */
  signal?: AbortSignal;
}

/**
 * An ExternalClient does the provider's work for one concrete resource. Every method is
 * idempotent: repeating it, or calling it after a crash interrupted an earlier call, is
 * harmless and converges. Every method takes CallOptions last. An error that carries
 * `retryAfterSeconds` (RetryAfterHint: the cloud said when to come back) is retried after that
 * time, at most MAX_RETRY_AFTER_SECONDS, instead of after the reconciler's own backoff.
 */
export interface ExternalClient<R extends KObject = KObject> {
  /** observe reports whether the external resource exists and is up to date; never changes it. */
  observe(resource: R, options?: CallOptions): Promise<ExternalObservation>;
  /** create makes the external resource exist (finishing a half-done earlier attempt). */
  create(resource: R, options?: CallOptions): Promise<ExternalCreation>;
  /** update brings an existing external resource to the desired state. */
  update(resource: R, options?: CallOptions): Promise<ExternalUpdate>;
  /** delete makes the external resource not exist; deleting what is gone succeeds. */
  delete(resource: R, options?: CallOptions): Promise<void>;
  /** scrub erases the data of an exclusive resource so it can serve another claim (Recycle). */
  scrub?(resource: R, options?: CallOptions): Promise<void>;
  /** discover lists external resources of this kind that the provider can see. */
  discover?(options?: CallOptions): Promise<DiscoveredResource[]>;
  /** close releases what the client holds (connections); the client is not used after it. */
  close?(): Promise<void>;
}

/**
 * A SharedExternalClient also manages each bound claim's own share of a shared resource
 * (e.g. a database and role per claim on a shared server).
 */
export interface SharedExternalClient<R extends KObject = KObject> extends ExternalClient<R> {
  /**
   * bindClaim creates (or finds) the claim's own share and returns its connection details.
   * `previous` are the details published earlier for this claim, if any: when they still
   * work they are returned unchanged, so repeating a bind does not rotate credentials.
   */
  bindClaim(resource: R, claim: KObject, previous?: ConnectionDetails, options?: CallOptions): Promise<ConnectionDetails>;
  /**
   * unbindClaim applies the rebind policy to the claim's share: keep, erase or remove it.
   * `recorded` are the details last published for this claim, if any (they name a share an
   * earlier version made under an older naming scheme).
   */
  unbindClaim(resource: R, claim: ClaimRef, policy: RebindPolicy, recorded?: ConnectionDetails, options?: CallOptions): Promise<void>;
}

/** isSharedClient tells whether an external client manages per-claim shares. */
export function isSharedClient<R extends KObject>(client: ExternalClient<R>): client is SharedExternalClient<R> {
  const c = client as Partial<SharedExternalClient<R>>;
  return typeof c.bindClaim === 'function' && typeof c.unbindClaim === 'function';
}

/** A ConnectContext carries what the controller read for a connector. */
export interface ConnectContext {
  /**
   * The decoded data of the Secret named by the kind's `credentialsSecretRef` (or of the
   * Provider's credentials Secret), as plain strings.
   */
  credentials?: Record<string, string>;
  /** The Provider object named by the resource's `spec.providerRef`, if any. */
  provider?: KObject;
  /** Aborted when the controller stops waiting for the connect (see CallOptions). */
  signal?: AbortSignal;
}

/** A Connector returns an external client for one resource. */
export interface Connector<R extends KObject = KObject> {
  connect(resource: R, context: ConnectContext): Promise<ExternalClient<R>>;
}

/** A ConcreteKind is one kind of managed resource a provider reconciles. */
export interface ConcreteKind<R extends KObject = KObject> {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The plural resource name served by the API (`postgresqlservers`). */
  readonly plural: string;
  /** Exclusive kinds serve one claim; Shared kinds give each claim its own share. */
  readonly sharing: SharingMode;
  readonly lifecycle: ExternalLifecycle;
  /**
   * True when the external name follows from the resource alone, so `create` after a crash
   * finds what an interrupted `create` made and the create-pending guard may retry it.
   */
  readonly deterministicExternalNames: boolean;
  /** The claim kinds this kind implements. */
  readonly implements: readonly ClaimImplementation<R>[];
  /** The Secret whose data the connector needs as `context.credentials`, if any. */
  credentialsSecretRef?(resource: R): SecretRef | undefined;
  readonly connector: Connector<R>;
  /**
   * workers, for a kind whose calls mostly wait on another server (a cluster's API server, a
   * cloud) rather than on this machine: how many of its resources are reconciled at once. Without
   * it the reconciler's default (4) applies; a `workers` option given to the reconcilers wins.
   */
  readonly workers?: number;
  /**
   * watch, for a kind that can tell at once when an external resource changed on its own (a
   * supervised server process exited), registers `changed`: it is called with the managed
   * resource's namespace and name so the reconciler looks at it now rather than at its next
   * poll. The poll stays for what cannot be watched.
   */
  watch?(changed: (namespace: string, name: string) => void): void;
  /**
   * logRoot, for a kind whose resources run a server or proxy on this machine: the directory
   * under which the log files its observations record as `status.atProvider.logFile` lie.
   * A kind with it serves the `log` subresource (`conductor logs`); a recorded path outside
   * it is refused.
   */
  readonly logRoot?: string;
}

/** A ProviderModule is everything a provider contributes. */
export interface ProviderModule {
  readonly type: ProviderType;
  readonly kinds: readonly ConcreteKind[];
  /**
   * True when a ResourceClass of this module's kinds may omit `providerRef`: the scheduler then
   * places it on each Provider of this type in the system namespace (one candidate per
   * Provider, with its region and capabilities; those not Ready are rejected), and the
   * resource created names the Provider chosen. Modules whose kinds need no Provider (local,
   * memory) leave it unset: their provider-less classes stay one candidate.
   */
  readonly placedAcrossProviders?: boolean;
  /** stop releases what the provider runs on this machine (e.g. local server processes). */
  stop?(): Promise<void>;
  /**
   * check says whether a Provider object of this module's type can work: its credentials
   * authenticate and what its kinds depend on is there (the local provider: the programs its
   * kinds run). The Provider controller calls it on every change and periodically and writes
   * the answer to the Provider's Ready condition. A module without `check` is always ready.
   */
  check?(provider: KObject, context: ProviderCheckContext): Promise<ProviderCheck>;
}

/**
 * A ClaimSupport says, before anything starts, that a concrete kind implements a claim kind
 * and which keys its connection Secret gets: the claim kind's portable keys, plus any the kind
 * adds (named in its CRD's description). Every ClaimImplementation is one.
 */
export interface ClaimSupport {
  readonly claimKind: GroupKind;
  readonly connectionSecretKeys: readonly string[];
}

/**
 * A ConcreteKindDefinition is a concrete kind as its provider declares it without starting
 * anything: its names and CRD (written once with the schema builder), whether it is shared,
 * who owns its external resources, and the claim kinds it implements.
 */
export interface ConcreteKindDefinition {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /** A fresh copy of the kind's CustomResourceDefinition. */
  crd(): KObject;
  readonly sharing: SharingMode;
  readonly lifecycle: ExternalLifecycle;
  readonly implements: readonly ClaimSupport[];
}

/** What every provider's `start` is given; a provider may ask for more (its own options type). */
export interface ProviderStartOptions {
  /** Conductor's data directory; a provider keeps its files under `<dataDir>/providers/<name>/`. */
  dataDir: string;
  env?: Record<string, string | undefined>;
  logger?: ProviderLogger;
}

/**
 * A ProviderDefinition is the one value a provider folder exports: its name and type and its
 * concrete kinds (enough to build the catalog and print CRDs without starting anything), and
 * `start`, which creates what runs (supervisors, binaries found, connectors) and returns the
 * ProviderModule the controllers use. Its kinds must be exactly the declared ones.
 */
export interface ProviderDefinition<M extends ProviderModule = ProviderModule, O extends ProviderStartOptions = ProviderStartOptions> {
  /** The provider's name, e.g. `local`, `memory`. */
  readonly name: string;
  readonly type: ProviderType;
  readonly kinds: readonly ConcreteKindDefinition[];
  /**
   * True when what it provisions lives on the machine Conductor runs on (server processes,
   * directories): `conductor controllers`, which runs against another API server (a cluster),
   * does not start it. Default false.
   */
  readonly onServerHost?: boolean;
  start(options: O): Promise<M>;
}

/** A ProviderCheckContext carries what the Provider controller read for `check`. */
export interface ProviderCheckContext {
  /** The decoded data of the Provider's credentials Secret, when it names one. */
  credentials?: Record<string, string>;
  /** Aborted when the controller stops waiting (see CallOptions). */
  signal?: AbortSignal;
}

/**
 * A ProviderCheck is the verdict of `check`: ready (with an optional message, e.g. what was
 * found), or not ready with a CamelCase reason and a message saying what is wrong and what
 * to do. A not-ready verdict caused by a throttling answer that said when to come back carries
 * `retryAfterSeconds` (the cloud's Retry-After, bounded to MAX_RETRY_AFTER_SECONDS): the
 * Provider is then Ready=False `Throttled` and checked again after that time, not at the
 * controller's usual cadence.
 */
export type ProviderCheck =
  | {
      ready: true;
      message?: string;
      /** What the check found of the provider (a server's version, what its credentials may do), written to the Provider's `status.atProvider`. */
      atProvider?: JsonObject;
    }
  | { ready: false; reason: string; message: string; retryAfterSeconds?: number };

/** failedCheck is the not-ready ProviderCheck of a classified provider error (reason, message, and its Retry-After if any). */
export function failedCheck(err: { reason: string; message: string; retryAfterSeconds?: number }): ProviderCheck {
  return {
    ready: false,
    reason: err.reason,
    message: err.message,
    ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}),
  };
}

/** A Logger is the structured logging surface providers write to (a pino logger fits). */
export interface ProviderLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const nothing = (): void => {};

/** A silentProviderLogger discards everything. */
export const silentProviderLogger: ProviderLogger = { debug: nothing, info: nothing, warn: nothing, error: nothing };

/** implementationFor finds how a concrete kind implements a claim kind, if it does. */
export function implementationFor<R extends KObject>(kind: ConcreteKind<R>, claimKind: GroupKind): ClaimImplementation<R> | undefined {
  return kind.implements.find((i) => i.claimKind.group === claimKind.group && i.claimKind.kind.toLowerCase() === claimKind.kind.toLowerCase());
}

/** advertisedPrice reads what a resource advertises in `status.atProvider` (priceStatus's shape), if anything. */
export function advertisedPrice(resource: KObject): MonthlyPrice | NoPrice | undefined {
  const status = isPlainObject(resource['status']) ? resource['status'] : {};
  const at = isPlainObject(status['atProvider']) ? status['atProvider'] : {};
  const p = at['monthlyPrice'];
  if (isPlainObject(p) && typeof p['amount'] === 'string' && typeof p['currency'] === 'string') {
    return {
      amount: p['amount'],
      currency: p['currency'],
      basis: typeof p['basis'] === 'string' ? p['basis'] : 'status.atProvider.monthlyPrice',
      table: typeof p['table'] === 'string' ? p['table'] : '',
    };
  }
  return typeof at['priceNote'] === 'string' ? { reason: at['priceNote'] } : undefined;
}
