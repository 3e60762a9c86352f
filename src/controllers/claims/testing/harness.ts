/**
 * A harness for table tests of the claim controller's pieces over the fake client: one claim
 * kind (PostgreSQLInstance) served by one concrete kind (MemoryDatabase) whose provider is a
 * recording fake, the pieces' shared caches started over the fake client, and builders for
 * claims, resources, classes and Secrets. Seed what a case needs, call the piece, then read
 * the fake client's stored objects and actions.
 */
import pino from 'pino';
import { apiRefs, postgresqlInstanceKind, type Claim, type ConcreteResource } from '../../../apis/index.js';
import { memoryDatabaseKind } from '../../../providers/memory/kinds.js';
import { catalog } from '../../../conductor/catalog.js';
import { builtinRefs, type ResourceRef } from '../../../client/types.js';
import { FakeClient } from '../../../client/testing/fake-client.js';
import type { KObject } from '../../../machinery/object.js';
import type { ClaimRef, ConcreteKind, ConnectionDetails, RebindPolicy, SharedExternalClient, SharingMode } from '../../../providers/spi.js';
import { resourceCandidateFromObject, type ResourceCandidate } from '../../../scheduler/index.js';
import { ClaimCaches, kindKey, type ClaimKindEntry, type ConcreteKindEntry } from '../claim-caches.js';
import { ProviderAccess } from '../provider-access.js';
import { SchedulerFeed } from '../scheduler-feed.js';
import { servedKinds } from '../served-kinds.js';
import { ClaimController } from '../claim-controller.js';

export const SYS = 'conductor-system';
export const APP = 'app';
export const CLAIM_API = postgresqlInstanceKind.apiVersion;
export const RESOURCE_API = memoryDatabaseKind.apiVersion;
export const claimRef: ResourceRef = postgresqlInstanceKind.ref;
export const resourceRef: ResourceRef = memoryDatabaseKind.ref;

/** One recorded provider call. */
export interface ProviderCall {
  method: 'connect' | 'bindClaim' | 'unbindClaim' | 'scrub' | 'close';
  resource: string;
  claim?: string;
  policy?: RebindPolicy;
  previous?: ConnectionDetails;
}

/** A FakeProvider records calls; its behaviour is in function fields a case may replace. */
export class FakeProvider {
  readonly calls: ProviderCall[] = [];
  bindClaim = async (_resource: KObject, claim: KObject, previous?: ConnectionDetails): Promise<ConnectionDetails> =>
    previous ?? {
      host: 'db.example',
      port: '5432',
      username: `u-${claim.metadata.name}`,
      password: `p-${claim.metadata.name}`,
      database: `d-${claim.metadata.name}`,
    };

  kind(sharing: SharingMode = 'Exclusive'): ConcreteKind {
    const key = (r: KObject) => `${r.metadata.namespace}/${r.metadata.name}`;
    const client = (resource: KObject): SharedExternalClient => ({
      observe: async () => ({ exists: true, upToDate: true }),
      create: async () => ({}),
      update: async () => ({}),
      delete: async () => {},
      scrub: async (r) => {
        this.calls.push({ method: 'scrub', resource: key(r) });
      },
      bindClaim: async (r, claim, previous) => {
        this.calls.push({ method: 'bindClaim', resource: key(r), claim: key(claim), ...(previous ? { previous } : {}) });
        return this.bindClaim(r, claim, previous);
      },
      unbindClaim: async (r, claim: ClaimRef, policy) => {
        this.calls.push({ method: 'unbindClaim', resource: key(r), claim: `${claim.namespace}/${claim.name}`, policy });
      },
      close: async () => {
        this.calls.push({ method: 'close', resource: key(resource) });
      },
    });
    return {
      group: memoryDatabaseKind.group,
      version: memoryDatabaseKind.version,
      kind: memoryDatabaseKind.kind,
      plural: memoryDatabaseKind.plural,
      sharing,
      lifecycle: 'Managed',
      deterministicExternalNames: true,
      implements: [
        {
          claimKind: { group: postgresqlInstanceKind.group, kind: postgresqlInstanceKind.kind },
          connectionSecretKeys: ['host', 'port', 'username', 'password', 'database'],
          match: () => ({ fits: true }),
          configure: (claim, template) => ({ ...(template.spec ?? {}), configuredFor: claim.metadata.name ?? '' }),
          formatConnection: (d) => ({ ...d }),
        },
      ],
      connector: {
        connect: async (resource) => {
          this.calls.push({ method: 'connect', resource: key(resource) });
          return client(resource);
        },
      },
    };
  }

  callsOf(method: ProviderCall['method']): ProviderCall[] {
    return this.calls.filter((c) => c.method === method);
  }
}

/** The world of one case. */
export interface Harness {
  client: FakeClient;
  caches: ClaimCaches;
  feed: SchedulerFeed;
  access: ProviderAccess;
  provider: FakeProvider;
  claims: ClaimKindEntry;
  concrete: ConcreteKindEntry;
  /** Stored objects of the fake client, by ref, namespace and name. */
  stored<T extends KObject = KObject>(ref: ResourceRef, namespace: string, name: string): T | undefined;
  /** Actions of one verb on one resource type since the case started (after seeding). */
  writes(verb: string, resource: string): number;
  /** Reasons of the Events recorded about an object. */
  events(name: string): { type: string; reason: string; message: string }[];
  stop(): void;
}

export interface HarnessOptions {
  /** The concrete kind's sharing (default Exclusive). */
  sharing?: SharingMode;
}

/** harness seeds `objects` (with their status) into a fake client, starts the caches and returns the world. */
export async function harness(objects: readonly { ref: ResourceRef; obj: KObject }[], options: HarnessOptions = {}): Promise<Harness> {
  const client = new FakeClient();
  for (const ns of [SYS, APP]) client.seed(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const { ref, obj } of objects) client.seed(ref, obj);
  const provider = new FakeProvider();
  const kind = provider.kind(options.sharing);
  const access = new ProviderAccess(client, [{ type: 'local', kinds: [kind] }]);
  const caches = new ClaimCaches(
    client,
    undefined,
    servedKinds([kind], (g, k) => catalog.findKind(g, k), catalog.claimKinds),
    SYS,
  );
  const feed = new SchedulerFeed(caches, [kind], SYS, pino({ level: 'silent' }));
  await caches.start();
  const seen = client.actions.length;
  return {
    client,
    caches,
    feed,
    access,
    provider,
    claims: caches.claims.get(kindKey(postgresqlInstanceKind.group, postgresqlInstanceKind.kind))!,
    concrete: caches.concretes.get(kindKey(memoryDatabaseKind.group, memoryDatabaseKind.kind))!,
    stored: <T extends KObject>(ref: ResourceRef, namespace: string, name: string) => client.stored<T>(ref, namespace).find((o) => o.metadata.name === name),
    writes: (verb, resource) => client.actions.slice(seen).filter((a) => a.verb === verb && a.resource === resource).length,
    events: (name) =>
      client
        .stored(builtinRefs.events)
        .filter((e) => (e.involvedObject as { name?: string } | undefined)?.name === name)
        .map((e) => ({ type: String(e.type), reason: String(e.reason), message: String(e.message) })),
    stop: () => caches.stop(),
  };
}

/** A PostgreSQLInstance claim in APP with a fixed uid. */
export function claim(name: string, spec: Record<string, unknown> = {}, extra: Partial<Claim> = {}): { ref: ResourceRef; obj: Claim } {
  return {
    ref: claimRef,
    obj: {
      apiVersion: CLAIM_API,
      kind: postgresqlInstanceKind.kind,
      ...extra,
      metadata: { name, namespace: APP, uid: `uid-${name}`, finalizers: ['conductor.io/claim-protection'], ...(extra.metadata ?? {}) },
      spec: { ...spec },
    },
  };
}

/** The reference a resource records for a claim made by `claim(name)`. */
export function refTo(name: string, namespace = APP): { apiVersion: string; kind: string; namespace: string; name: string; uid: string } {
  return { apiVersion: CLAIM_API, kind: postgresqlInstanceKind.kind, namespace, name, uid: `uid-${name}` };
}

/** A MemoryDatabase in SYS. */
export function resource(
  name: string,
  spec: Record<string, unknown> = {},
  status?: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): { ref: ResourceRef; obj: ConcreteResource } {
  return {
    ref: resourceRef,
    obj: {
      apiVersion: RESOURCE_API,
      kind: memoryDatabaseKind.kind,
      metadata: { name, namespace: SYS, uid: `uid-${name}`, ...metadata },
      spec: { version: '16.4', rebindPolicy: 'Retain', managementPolicy: 'Full', ...spec },
      ...(status ? { status } : {}),
    },
  };
}

/** A Ready=True status (with other status fields). */
export function readyStatus(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    phase: 'Available',
    ...extra,
    conditions: [{ type: 'Ready', status: 'True', reason: 'Available', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  };
}

/** A Secret with `data` (plain strings, encoded here). */
export function secret(namespace: string, name: string, data: Record<string, string>, owner?: KObject): { ref: ResourceRef; obj: KObject } {
  return {
    ref: builtinRefs.secrets,
    obj: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name,
        namespace,
        labels: { 'conductor.io/connection': 'true' },
        ...(owner
          ? { ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true }] }
          : {}),
      },
      type: 'Opaque',
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    },
  };
}

/** A ResourceClass provisioning MemoryDatabases. */
export function resourceClass(name: string, fields: Record<string, unknown> = {}, namespace = SYS): { ref: ResourceRef; obj: KObject } {
  return {
    ref: apiRefs.resourceclasses,
    obj: {
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name, namespace },
      supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
      template: { apiVersion: RESOURCE_API, kind: memoryDatabaseKind.kind, spec: { version: '16.4' } },
      ...fields,
    },
  };
}

/** The scheduler's candidate for a resource as it is now (or as `asIf` shows it). */
export function candidateOf(obj: KObject): ResourceCandidate {
  return resourceCandidateFromObject(obj, { implements: [{ group: postgresqlInstanceKind.group, kind: postgresqlInstanceKind.kind }] });
}

/** runningController starts a whole ClaimController over the fake client (2 workers), serving the catalog's kinds and the fake provider's. */
export async function runningController(client: FakeClient): Promise<ClaimController> {
  const controller = new ClaimController(client, new ProviderAccess(client, [{ type: 'local', kinds: [new FakeProvider().kind()] }]), {
    logger: pino({ level: 'silent' }),
    kinds: catalog,
    systemNamespace: SYS,
    workers: 2,
  });
  await controller.start();
  return controller;
}
