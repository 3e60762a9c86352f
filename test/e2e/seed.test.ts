/**
 * The seed's example (examples/seed): applied as written, the MySQLInstance claim binds to the
 * concrete resource it names, `rds-instance-445`, and its connection Secret logs in to a real
 * MariaDB server with only the Secret's keys.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SEED = join(process.cwd(), 'examples', 'seed');

describe("the seed's MySQL example", () => {
  let server: ServerProcess;
  let api: ApiHandle;

  before(async () => {
    server = await startServer({});
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, [
      'wait',
      '--for=condition=Established',
      'crd/mysqlinstances.storage.conductor.io',
      'crd/localmysqlinstances.database.local.conductor.io',
      'crd/resourceclasses.core.conductor.io',
      '--timeout=30s',
    ]);
  });

  after(async () => {
    if (server) {
      // Both dedicated servers go: the claim's with its namespace (Delete), the other by hand.
      await kubectlOk(server, ['delete', 'namespace', 'wordpress', '--wait=true', '--timeout=90s']).catch(() => undefined);
      await kubectlOk(server, ['delete', 'localmysqlinstances', '--all', '-n', 'conductor-system', '--wait=true', '--timeout=90s']).catch(() => undefined);
      await server.stop();
      removeDir(server.dataDir);
    }
    api?.close();
  });

  test('kubectl apply -f examples/seed/: the claim is Bound to rds-instance-445 and its Secret works', async () => {
    await kubectlOk(server, ['apply', '-f', SEED]);
    const claim = await eventually(
      async () => {
        const c = (await api.request('GET', '/apis/storage.conductor.io/v1alpha1/namespaces/wordpress/mysqlinstances/wordpress-db')).json();
        const ready = c.status?.conditions?.find((x: { type: string }) => x.type === 'Ready');
        return c.status?.phase === 'Bound' && ready?.status === 'True' ? c : undefined;
      },
      'wordpress-db Bound and Ready',
      180_000,
      250,
    );
    assert.equal(claim.status.resourceRef.name, 'rds-instance-445');
    assert.equal(claim.status.resourceRef.kind, 'LocalMySQLInstance');

    const s = (await api.request('GET', '/api/v1/namespaces/wordpress/secrets/wordpress-db')).json();
    const d = Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    assert.equal(d.username, 'masteruser');
    const c = await mysql.createConnection({ host: d.host, port: Number(d.port), user: d.username, password: d.password, database: d.database });
    try {
      await c.query('create table posts (id int primary key, title text)');
      await c.query("insert into posts values (1, 'Hello world!')");
      const [rows] = await c.query('select title from posts');
      assert.deepEqual(rows, [{ title: 'Hello world!' }]);
    } finally {
      await c.end();
    }
  });
});
