/**
 * tinykv: a small provider that runs in its own process and talks to Conductor through the
 * Kubernetes API only (with @kubernetes/client-node and a kubeconfig: no code of Conductor's).
 * It shows what an out-of-process provider does (docs/design.md 3.7):
 *
 * - registers a new abstract kind, `KeyValueStore` (kv.conductor.example), labelled
 *   `conductor.io/abstract: "true"`, whose connection Secret has the keys `endpoint` and `token`;
 * - registers its concrete kind, `TinyKVServer` (tinykv.provider.example), annotated
 *   `conductor.io/implements: keyvaluestores.kv.conductor.example`, which adds the key `server`;
 * - reconciles TinyKVServers: each is a real HTTP key-value server in this process, on
 *   127.0.0.1, behind a bearer token, holding at most `spec.maxKeys` keys. It writes the
 *   resource's connection Secret (`<name>-connection`, owned by the resource), its `Ready`
 *   condition and phase `Available` (never over Conductor's `Bound` or `Released`), and, on
 *   deletion, stops the server and lets the resource go (finalizer).
 *
 * Run: `node tinykv-provider.js` with KUBECONFIG set. It prints "tinykv provider running" once
 * its CRDs are Established, and stops on SIGTERM.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';

const CLAIM_GROUP = 'kv.conductor.example';
const GROUP = 'tinykv.provider.example';
const VERSION = 'v1alpha1';
const PLURAL = 'tinykvservers';
const FINALIZER = 'tinykv.provider.example/server';
const CONNECTION_SECRET_TYPE = 'connection.conductor.io/v1alpha1';
const FIELD_MANAGER = 'tinykv-provider';
const RESYNC_MS = 200;
const MAX_VALUE_BYTES = 1 << 20;

// client-node's typed API spells the schema extension with underscores (it writes x-kubernetes-preserve-unknown-fields).
const anyObject = { type: 'object', x_kubernetes_preserve_unknown_fields: true };

/** The abstract kind: what developers claim. */
const keyValueStoreCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: `keyvaluestores.${CLAIM_GROUP}`,
    labels: { 'conductor.io/abstract': 'true' },
    annotations: { 'conductor.io/connection-keys': 'endpoint,token' },
  },
  spec: {
    group: CLAIM_GROUP,
    scope: 'Namespaced',
    names: { kind: 'KeyValueStore', plural: 'keyvaluestores', singular: 'keyvaluestore', categories: ['claim'] },
    versions: [
      {
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  maxKeys: { type: 'integer', minimum: 1, description: 'How many keys the store must hold.' },
                  requirements: anyObject,
                  resourceClass: { type: 'string' },
                  resourceName: { type: 'string' },
                  resourceSelector: anyObject,
                  writeConnectionSecretToRef: anyObject,
                },
              },
              status: anyObject,
            },
          },
        },
      },
    ],
  },
};

/** The concrete kind: what this provider runs. */
const tinyKvServerCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: `${PLURAL}.${GROUP}`,
    annotations: { 'conductor.io/implements': `keyvaluestores.${CLAIM_GROUP}`, 'conductor.io/connection-keys': 'server' },
  },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { kind: 'TinyKVServer', plural: PLURAL, singular: 'tinykvserver', categories: ['managed'] },
    versions: [
      {
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
          { name: 'Claim', type: 'string', jsonPath: '.status.claim' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  maxKeys: { type: 'integer', minimum: 1, default: 100 },
                  claimRef: anyObject,
                  providerRef: anyObject,
                  rebindPolicy: { type: 'string', enum: ['Retain', 'Delete', 'Recycle'] },
                  resourceClass: { type: 'string' },
                  capabilities: anyObject,
                  sharing: anyObject,
                  writeConnectionSecretToRef: anyObject,
                },
              },
              status: anyObject,
            },
          },
        },
      },
    ],
  },
};

interface TinyKVServer {
  metadata: { name: string; namespace: string; uid: string; generation?: number; deletionTimestamp?: string; finalizers?: string[]; resourceVersion?: string };
  spec?: { maxKeys?: number; writeConnectionSecretToRef?: { name?: string } };
  status?: { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[]; [k: string]: unknown };
}

/** One running key-value server. */
interface Running {
  server: Server;
  endpoint: string;
  token: string;
  maxKeys: number;
}

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const extensions = kc.makeApiClient(k8s.ApiextensionsV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const core = kc.makeApiClient(k8s.CoreV1Api);
const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const running = new Map<string, Running>();
let stopping = false;

const code = (err: unknown): number | undefined => (err as { code?: number }).code;

async function registerCrd(crd: { metadata: { name: string } }): Promise<void> {
  try {
    await extensions.createCustomResourceDefinition({ body: crd as k8s.V1CustomResourceDefinition });
  } catch (err) {
    if (code(err) !== 409) throw err;
  }
  for (;;) {
    const got = await extensions.readCustomResourceDefinition({ name: crd.metadata.name });
    if (got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** serve starts a key-value server holding at most `maxKeys` keys, behind a bearer token. */
async function serve(maxKeys: number): Promise<Running> {
  const token = randomBytes(16).toString('hex');
  const data = new Map<string, string>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const reply = (status: number, body: string) => res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    if (req.headers.authorization !== `Bearer ${token}`) return reply(401, 'a bearer token is required\n');
    const key = decodeURIComponent((req.url ?? '').replace(/^\/kv\//, ''));
    if (!req.url?.startsWith('/kv/') || key === '') return reply(404, 'use /kv/<key>\n');
    if (req.method === 'GET') return data.has(key) ? reply(200, data.get(key)!) : reply(404, 'no such key\n');
    if (req.method !== 'PUT') return reply(405, 'GET or PUT\n');
    let body = '';
    let refused = false;
    req.on('data', (d: Buffer) => {
      if (refused) return;
      body += d.toString();
      // A client may not grow this process without bound: one value is at most 1 MiB.
      if (body.length > MAX_VALUE_BYTES) {
        refused = true;
        reply(413, `a value is at most ${MAX_VALUE_BYTES} bytes\n`);
        req.destroy();
      }
    });
    req.on('end', () => {
      if (refused) return;
      if (!data.has(key) && data.size >= maxKeys) return reply(507, `this store holds at most ${maxKeys} keys\n`);
      data.set(key, body);
      reply(204, '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, endpoint: `http://127.0.0.1:${port}`, token, maxKeys };
}

async function stopServer(uid: string): Promise<void> {
  const r = running.get(uid);
  if (!r) return;
  running.delete(uid);
  r.server.closeAllConnections();
  await new Promise((resolve) => r.server.close(resolve));
}

async function writeSecret(obj: TinyKVServer, r: Running): Promise<void> {
  const name = obj.spec?.writeConnectionSecretToRef?.name || `${obj.metadata.name}-connection`;
  const data = { endpoint: r.endpoint, token: r.token, server: `${obj.metadata.namespace}/${obj.metadata.name}` };
  const body: k8s.V1Secret = {
    metadata: {
      name,
      namespace: obj.metadata.namespace,
      ownerReferences: [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'TinyKVServer', name: obj.metadata.name, uid: obj.metadata.uid, controller: true }],
    },
    type: CONNECTION_SECRET_TYPE,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
  try {
    const have = await core.readNamespacedSecret({ name, namespace: obj.metadata.namespace });
    const same = Object.entries(body.data!).every(([k, v]) => have.data?.[k] === v);
    if (!same)
      await core.replaceNamespacedSecret({
        name,
        namespace: obj.metadata.namespace,
        body: { ...body, metadata: { ...body.metadata, resourceVersion: have.metadata?.resourceVersion } },
      });
  } catch (err) {
    if (code(err) !== 404) throw err;
    await core.createNamespacedSecret({ namespace: obj.metadata.namespace, body });
  }
}

async function writeStatus(obj: TinyKVServer, r: Running): Promise<void> {
  const status = obj.status ?? {};
  // Bound and Released are Conductor's phases (it binds and releases); this provider says whether the server is there.
  const phase = status.phase === 'Bound' || status.phase === 'Released' ? status.phase : 'Available';
  const ready = { type: 'Ready', status: 'True', reason: 'Serving', message: `serving on ${r.endpoint} (at most ${r.maxKeys} keys)` };
  const conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'Ready'), ready];
  const have = status.conditions?.find((c) => c.type === 'Ready');
  if (status.phase === phase && have?.status === 'True' && have.message === ready.message) return;
  await custom.replaceNamespacedCustomObjectStatus({
    group: GROUP,
    version: VERSION,
    namespace: obj.metadata.namespace,
    plural: PLURAL,
    name: obj.metadata.name,
    body: { ...obj, status: { ...status, phase, conditions } },
    fieldManager: FIELD_MANAGER,
  });
}

async function reconcile(obj: TinyKVServer): Promise<void> {
  const { name, namespace, uid } = obj.metadata;
  const finalizers = obj.metadata.finalizers ?? [];
  if (obj.metadata.deletionTimestamp) {
    await stopServer(uid);
    if (finalizers.includes(FINALIZER)) {
      const rest = finalizers.filter((f) => f !== FINALIZER);
      await custom.patchNamespacedCustomObject(
        {
          group: GROUP,
          version: VERSION,
          namespace,
          plural: PLURAL,
          name,
          body: { metadata: { finalizers: rest.length ? rest : null, resourceVersion: obj.metadata.resourceVersion } },
        },
        mergePatch,
      );
    }
    return;
  }
  if (!finalizers.includes(FINALIZER)) {
    await custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace,
        plural: PLURAL,
        name,
        body: { metadata: { finalizers: [...finalizers, FINALIZER], resourceVersion: obj.metadata.resourceVersion } },
      },
      mergePatch,
    );
    return; // the next pass sees the new object
  }
  const maxKeys = obj.spec?.maxKeys ?? 100;
  let r = running.get(uid);
  if (r && r.maxKeys !== maxKeys) {
    await stopServer(uid);
    r = undefined;
  }
  if (!r) {
    r = await serve(maxKeys);
    running.set(uid, r);
  }
  await writeSecret(obj, r);
  await writeStatus(obj, r);
}

async function pass(): Promise<void> {
  const list = (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as { items: TinyKVServer[] };
  const seen = new Set<string>();
  for (const obj of list.items) {
    seen.add(obj.metadata.uid);
    try {
      await reconcile(obj);
    } catch (err) {
      // A conflict means a newer object: the next pass reads it.
      if (code(err) !== 409) console.error(`tinykv: cannot reconcile ${obj.metadata.namespace}/${obj.metadata.name}: ${(err as Error).message}`);
    }
  }
  for (const uid of [...running.keys()]) if (!seen.has(uid)) await stopServer(uid);
}

async function main(): Promise<void> {
  await registerCrd(keyValueStoreCrd);
  await registerCrd(tinyKvServerCrd);
  console.log('tinykv provider running');
  process.on('SIGTERM', () => {
    stopping = true;
  });
  while (!stopping) {
    try {
      await pass();
    } catch (err) {
      console.error(`tinykv: cannot list TinyKVServers: ${(err as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, RESYNC_MS));
  }
  for (const uid of [...running.keys()]) await stopServer(uid);
}

main().catch((err: unknown) => {
  console.error(`tinykv provider failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
