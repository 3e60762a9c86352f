/**
 * A Conductor that uses no cloud Provider loads no cloud SDK (issue 11, memory at scale): the
 * aws, gcp and azure SDKs, and the S3 client of the local provider, weigh about 73 MB of heap
 * and 160 MB of RSS together, and are imported by the first connect or check of a Provider of
 * their type. The server runs with a module-resolution hook (`--import` in NODE_OPTIONS) that
 * writes down every package the process resolves; with the shipped cloud classes applied and a
 * claim priced against them (Cloud SQL's price hook reads the resource's settings), the list
 * holds the packages the server needs and no `@aws-sdk/`, `@google-cloud/` or `@azure/` one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const CLOUD_SDK = /^@(aws-sdk|google-cloud|azure)\//;

/** A module that registers a resolve hook writing each bare specifier resolved to `log`, one per line. */
function resolveRecorder(log: string): string {
  const hooks = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  if (!/^(\\.|\\/|node:|file:|data:)/.test(specifier)) appendFileSync(${JSON.stringify(log)}, specifier + '\\n');
  return next(specifier, context);
}`;
  return `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});\n`;
}

describe('cloud SDKs load only when a Provider of their type is used', () => {
  let server: ServerProcess;
  let dir: string;
  let log: string;
  const resolved = () =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l !== '');

  before(async () => {
    dir = tempDir('conductor-lazy-sdk-');
    log = join(dir, 'resolved.txt');
    writeFileSync(log, '');
    const recorder = join(dir, 'record-resolve.mjs');
    writeFileSync(recorder, resolveRecorder(log));
    server = await startServer({ env: { NODE_OPTIONS: `--import=${pathToFileURL(recorder).href}` } });
  });

  after(async () => {
    await server?.stop();
    removeDir(server?.dataDir ?? '');
    removeDir(dir);
  });

  test('a started server and a claim priced against aws, gcp and azure classes resolve no cloud SDK', async () => {
    const examples = join(import.meta.dirname, '..', '..', '..', 'examples', 'clouds');
    await kubectlOk(server, [
      'apply',
      '-f',
      join(examples, 'gcp', '04-managed-classes.yaml'),
      '-f',
      join(examples, 'aws', '02-classes.yaml'),
      '-f',
      join(examples, 'azure', '04-databases.yaml'),
    ]);
    await kubectlOk(server, ['create', 'namespace', 'storefront']);
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: catalog, namespace: storefront}
spec:
  resourceClass: managed
  version: "16"
  requirements: {capacity: {storage: 10Gi}, region: us-central1, maxMonthlyPrice: "500"}
`,
    });
    // Priced by CloudSQLInstance's price hook (51.19 USD for db-custom-1-3840 in us-central1 with 10 GB).
    const message = await eventually(async () => {
      const m = await kubectlOk(server, [
        'get',
        'postgresqlinstance',
        '-n',
        'storefront',
        'catalog',
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Scheduled")].message}',
      ]);
      assert.match(m, /monthly prices: chose conductor-system\/gcp-cloudsql-postgres \d+\.\d\d USD/);
      return m;
    }, 'the claim priced and scheduled onto the Cloud SQL class');
    assert.match(message, /chose class conductor-system\/gcp-cloudsql-postgres/);
    // The claim's CloudSQLInstance exists (its reconciler waits for a gcp Provider that is not there).
    await eventually(
      async () => /cloudsqlinstance/.test(await kubectlOk(server, ['get', 'cloudsqlinstances', '-A', '-o', 'name'])),
      "the claim's CloudSQLInstance",
    );
    const packages = resolved();
    // The hook works: the server's own packages are there (those not bundled into dist/cli: see scripts/bundle-cli.mjs).
    for (const p of ['better-sqlite3', 'pino']) assert.ok(packages.includes(p), `the recorder saw ${p} (it saw: ${[...new Set(packages)].join(', ')})`);
    assert.deepEqual([...new Set(packages.filter((p) => CLOUD_SDK.test(p)))], [], 'no cloud SDK is resolved by a server with no Provider of aws, gcp or azure');
  });
});
