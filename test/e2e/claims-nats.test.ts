/**
 * MessageQueue claims end to end on a real nats-server that Conductor runs for a NATSServer
 * resource: each claim gets an account and user of its own and publishes and subscribes with
 * only its Secret's keys; another claim's user cannot read its subject; a killed server is
 * restarted with every account; Delete, Retain and Recycle act on the claim's account.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';
import { killLeftovers } from '../support/leftovers.js';

const SYS = 'conductor-system';
const claimsPath = (name = '') => `/apis/messaging.conductor.io/v1alpha1/namespaces/app/messagequeues${name ? `/${name}` : ''}`;
const busPath = `/apis/messaging.local.conductor.io/v1alpha1/namespaces/${SYS}/natsservers/bus`;

/** exchange subscribes with one Secret's keys and publishes with another's on `subject`. */
async function exchange(sub: Record<string, string>, pub: Record<string, string>, subject: string): Promise<{ got: string[]; subError?: string }> {
  const reader = await connect({ servers: sub.endpoint, user: sub.username, pass: sub.password, reconnect: false });
  const writer = await connect({ servers: pub.endpoint, user: pub.username, pass: pub.password, reconnect: false });
  const got: string[] = [];
  let subError: string | undefined;
  try {
    const s = reader.subscribe(subject, {
      callback: (err, msg) => {
        if (err) subError = err.message;
        else got.push(msg.string());
      },
    });
    await reader.flush();
    writer.publish(subject, 'hello');
    await writer.flush();
    // Until the message arrives or the subscription is refused, whichever the server does.
    await eventually(() => got.length > 0 || subError !== undefined, `the message on ${subject} or a refusal`, 5_000, 10);
    s.unsubscribe();
  } finally {
    await reader.close().catch(() => {});
    await writer.close().catch(() => {});
  }
  return { got, subError };
}

async function canLogIn(d: Record<string, string>): Promise<boolean> {
  try {
    const nc = await connect({ servers: d.endpoint, user: d.username, pass: d.password, reconnect: false, timeout: 2000 });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}

describe('MessageQueue claims on a real nats-server', () => {
  let server: ServerProcess;
  let api: ApiHandle;

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const get = async (path: string) => (await api.request('GET', path)).json();
  const boundAndReady = (name: string) =>
    eventually(
      async () => {
        const c = await get(claimsPath(name));
        return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `claim app/${name} Bound and Ready`,
      45_000,
    );
  const secretOf = async (name: string) => {
    const s = await get(`/api/v1/namespaces/app/secrets/${name}`);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const setPolicy = (policy: string) => api.request('PATCH', busPath, { spec: { rebindPolicy: policy } }, { 'Content-Type': 'application/merge-patch+json' });
  const claim = (name: string) => `apiVersion: messaging.conductor.io/v1alpha1
kind: MessageQueue
metadata: {name: ${name}, namespace: app}
spec: {resourceName: bus}
`;

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '1000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, [
      'wait',
      '--for=condition=Established',
      'crd/messagequeues.messaging.conductor.io',
      'crd/natsservers.messaging.local.conductor.io',
      '--timeout=30s',
    ]);
    await kubectlOk(server, ['create', 'namespace', 'app']);
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
---
apiVersion: messaging.local.conductor.io/v1alpha1
kind: NATSServer
metadata: {name: bus, namespace: ${SYS}}
spec:
  providerRef: {name: local}
  rebindPolicy: Delete
  sharing: {mode: Shared, maxClaims: 10}
`);
  });
  after(async () => {
    api?.close();
    await server?.stop();
    if (server) {
      killLeftovers(server.dataDir, 'nats', 'nats.pid');
      removeDir(server.dataDir);
    }
  });

  test("claims bind to the NATSServer; each publishes and subscribes on its own queue, and cannot read another's", async () => {
    await apply(claim('orders') + '---\n' + claim('billing'));
    const [orders] = await Promise.all([boundAndReady('orders'), boundAndReady('billing')]);
    assert.equal(orders.status.resourceRef.name, 'bus');
    const a = await secretOf('orders');
    const b = await secretOf('billing');
    for (const key of ['endpoint', 'queue', 'username', 'password']) assert.ok(a[key], `secret key ${key}`);
    assert.match(a.endpoint, /^nats:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(a.username, b.username);
    assert.deepEqual((await exchange(a, a, `${a.queue}.created`)).got, ['hello'], 'a claim receives its own messages');
    const spy = await exchange(b, a, `${a.queue}.created`);
    assert.deepEqual(spy.got, [], 'another claim receives nothing');
    assert.match(spy.subError ?? '', /permission/i, 'and is refused the subscription');
    const table = await kubectlOk(server, ['get', 'natsservers', '-n', SYS]);
    assert.match(table, /^bus\s+Bound\s+app\/\S+ \+1\s/m);
  });

  test("a killed nats-server is restarted and the claims' credentials still work", async () => {
    const a = await secretOf('orders');
    const before = await get(busPath);
    const pid = before.status.atProvider.pid as number;
    process.kill(pid, 'SIGKILL');
    await eventually(
      async () => {
        const r = await get(busPath);
        return r.status?.atProvider?.pid && r.status.atProvider.pid !== pid && r.status.atProvider.running ? r : undefined;
      },
      'the killed server to be restarted',
      30_000,
    );
    await eventually(async () => (await exchange(a, a, a.queue)).got.length === 1, 'messages to flow again', 10_000);
  });

  test("Delete removes the claim's account, Recycle invalidates its password, Retain keeps it", async () => {
    const orders = await secretOf('orders');
    await kubectlOk(server, ['delete', 'messagequeue', 'orders', '-n', 'app', '--timeout=60s']);
    assert.equal(await canLogIn(orders), false, 'Delete: the account is gone');

    assert.equal((await setPolicy('Recycle')).status, 200);
    const billing = await secretOf('billing');
    await kubectlOk(server, ['delete', 'messagequeue', 'billing', '-n', 'app', '--timeout=60s']);
    assert.equal(await canLogIn(billing), false, 'Recycle: the old password no longer works');

    assert.equal((await setPolicy('Retain')).status, 200);
    await apply(claim('audit'));
    await boundAndReady('audit');
    const audit = await secretOf('audit');
    await kubectlOk(server, ['delete', 'messagequeue', 'audit', '-n', 'app', '--timeout=60s']);
    assert.equal(await canLogIn(audit), true, 'Retain: the account and its user stay');
    const bus = await get(busPath);
    assert.equal(bus.status.phase, 'Available', 'the shared server takes new claims');
  });
});
