/**
 * A FakeExternal is an in-memory external system for tests of the managed reconciler: a
 * connector whose external clients record every call and act on a map of "external
 * resources". Its behaviour lives in function fields (`observe`, `create`, `update`,
 * `delete`, `connect`) that a test replaces to make a call fail, hang or report drift;
 * calls are recorded whichever function answers them.
 */
import type { KObject } from '../../../machinery/object.js';
import type {
  BrokenShare,
  CallOptions,
  ConcreteKind,
  ConnectContext,
  ConnectionDetails,
  Connector,
  ExternalClient,
  ExternalCreation,
  ExternalObservation,
  ExternalUpdate,
  SharingMode,
} from '../../../providers/spi.js';

/** A FakeCall is one recorded call. */
export interface FakeCall {
  method: 'connect' | 'observe' | 'create' | 'update' | 'delete' | 'close';
  /** `namespace/name` of the resource. */
  key: string;
  /** Date.now() when the call started. */
  at: number;
  /** What connect received. */
  context?: ConnectContext;
  /** The signal the call received (connect: in its context). */
  signal?: AbortSignal;
}

/** A FakeExternalResource is one resource in the fake external system. */
export interface FakeExternalResource {
  details: ConnectionDetails;
  /** When set, observe reports the resource as not up to date with this drift. */
  drift?: string;
  /** When set, observe reports the resource up to date but not ready, with this reason and message. */
  notReady?: { reason: string; message: string };
  /** Shared kinds: claims' shares observe reports as broken (update leaves them). */
  brokenShares?: BrokenShare[];
  /** Set by delete: the resource disappears after `observesLeft` more observes. */
  deleting?: { observesLeft: number };
}

function keyOf(r: KObject): string {
  return `${r.metadata.namespace ?? ''}/${r.metadata.name ?? ''}`;
}

/** A FakeExternal is the fake external system; see the file comment. */
export class FakeExternal {
  readonly calls: FakeCall[] = [];
  readonly resources = new Map<string, FakeExternalResource>();
  /** How many observes after a delete still find the resource (0: gone at once). */
  deleteLag = 0;

  connect = async (_resource: KObject, _context: ConnectContext): Promise<void> => {};

  observe = async (resource: KObject, _options?: CallOptions): Promise<ExternalObservation> => {
    const key = keyOf(resource);
    const r = this.resources.get(key);
    if (!r) return { exists: false, upToDate: false };
    if (r.deleting) {
      if (r.deleting.observesLeft <= 0) {
        this.resources.delete(key);
        return { exists: false, upToDate: false };
      }
      r.deleting.observesLeft--;
    }
    return {
      exists: true,
      upToDate: r.drift === undefined,
      ...(r.drift !== undefined ? { drift: r.drift } : {}),
      ...(r.notReady !== undefined ? { notReady: r.notReady } : {}),
      ...(r.brokenShares ? { brokenShares: r.brokenShares.map((b) => ({ ...b })) } : {}),
      atProvider: { state: r.deleting ? 'deleting' : 'running' },
      connectionDetails: { ...r.details },
    };
  };

  create = async (resource: KObject, _options?: CallOptions): Promise<ExternalCreation> => {
    const name = resource.metadata.name ?? '';
    const details = { host: 'fake.example', port: '5432', username: 'admin', password: `secret-of-${name}` };
    this.resources.set(keyOf(resource), { details });
    return { externalName: `fake-${name}`, connectionDetails: { ...details } };
  };

  update = async (resource: KObject, _options?: CallOptions): Promise<ExternalUpdate> => {
    const r = this.resources.get(keyOf(resource));
    if (!r) throw new Error(`fake: update of ${keyOf(resource)}, which does not exist`);
    delete r.drift;
    return {};
  };

  delete = async (resource: KObject, _options?: CallOptions): Promise<void> => {
    const r = this.resources.get(keyOf(resource));
    if (r && !r.deleting) r.deleting = { observesLeft: this.deleteLag };
  };

  /** The connector handing out recording clients. */
  readonly connector: Connector = {
    connect: async (resource: KObject, context: ConnectContext): Promise<ExternalClient> => {
      this.record('connect', resource, context, context.signal);
      await this.connect(resource, context);
      return {
        observe: (r, o) => {
          this.record('observe', r, undefined, o?.signal);
          return this.observe(r, o);
        },
        create: (r, o) => {
          this.record('create', r, undefined, o?.signal);
          return this.create(r, o);
        },
        update: (r, o) => {
          this.record('update', r, undefined, o?.signal);
          return this.update(r, o);
        },
        delete: (r, o) => {
          this.record('delete', r, undefined, o?.signal);
          return this.delete(r, o);
        },
        close: async () => {
          this.record('close', resource);
        },
      };
    },
  };

  /** callsOf lists the calls of one method, optionally for one `namespace/name`. */
  callsOf(method: FakeCall['method'], key?: string): FakeCall[] {
    return this.calls.filter((c) => c.method === method && (key === undefined || c.key === key));
  }

  private record(method: FakeCall['method'], resource: KObject, context?: ConnectContext, signal?: AbortSignal): void {
    this.calls.push({ method, key: keyOf(resource), at: Date.now(), ...(context ? { context } : {}), ...(signal ? { signal } : {}) });
  }
}

/** FakeKindOptions shape the ConcreteKind fakeKind builds. */
export interface FakeKindOptions {
  group: string;
  version: string;
  kind: string;
  plural: string;
  sharing?: SharingMode;
  lifecycle?: 'Managed' | 'Registered';
  deterministicExternalNames?: boolean;
  credentialsSecretRef?: ConcreteKind['credentialsSecretRef'];
}

/** fakeKind is a ConcreteKind served by `external` (its CRD must be installed by the test). */
export function fakeKind(external: FakeExternal, options: FakeKindOptions): ConcreteKind {
  return {
    group: options.group,
    version: options.version,
    kind: options.kind,
    plural: options.plural,
    sharing: options.sharing ?? 'Exclusive',
    lifecycle: options.lifecycle ?? 'Managed',
    deterministicExternalNames: options.deterministicExternalNames ?? false,
    implements: [],
    ...(options.credentialsSecretRef ? { credentialsSecretRef: options.credentialsSecretRef } : {}),
    connector: external.connector,
  };
}
