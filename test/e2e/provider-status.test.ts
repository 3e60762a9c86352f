/**
 * Provider status with the real kubectl: `kubectl get providers` shows TYPE, READY and
 * RESOURCES; a local Provider is Ready when the programs its kinds run are installed, turns
 * Ready=False naming a program that went missing (CONDUCTOR_REDIS_BIN points at a path that
 * is removed), and Ready again once it is back; a Provider whose type's check refuses its
 * spec says why (an aws Provider without a region). A Provider of type memory is Ready, counts the MemoryDatabases
 * naming it (RESOURCES follows them as they come and go) and serves a claim provisioned from
 * a class naming it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRedisBinary } from '../../src/providers/local/redis/binaries.js';
import { eventually } from '../support/eventually.js';
import { kubectlOk, serverForSuite } from '../support/server.js';

const binDir = mkdtempSync(join(tmpdir(), 'conductor-provider-status-'));
const redisLink = join(binDir, 'redis-server');
let realRedis: string;

describe('Provider status', () => {
  before(async () => {
    realRedis = (await resolveRedisBinary()).path;
    symlinkSync(realRedis, redisLink);
  });
  after(() => rmSync(binDir, { recursive: true, force: true }));
  const suite = serverForSuite({ env: { CONDUCTOR_REDIS_BIN: redisLink } });
  const ns = ['-n', 'conductor-system'];
  const ready = async (name: string, field: 'status' | 'reason' | 'message') =>
    kubectlOk(suite.server, ['get', 'provider', name, ...ns, '-o', `jsonpath={.status.conditions[?(@.type=="Ready")].${field}}`]);

  test('kubectl get providers shows TYPE, READY and RESOURCES; a missing program or type makes it Ready=False with the reason', async () => {
    const s = suite.server;
    await kubectlOk(s, [
      'wait',
      '--for=condition=Established',
      'crd/providers.core.conductor.io',
      'crd/memorydatabases.database.memory.conductor.io',
      '--timeout=60s',
    ]);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: lab, namespace: conductor-system}
spec: {type: local}
---
apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: cloud, namespace: conductor-system}
spec: {type: aws, project: demo}
`,
    });

    const table = await eventually(async () => {
      const out = await kubectlOk(s, ['get', 'providers', ...ns]);
      return /^lab\s+local\s+True\s+0\s+\S+$/m.test(out) && /^cloud\s+aws\s+False\s+0\s+\S+$/m.test(out) ? out : undefined;
    }, 'lab Ready, cloud not Ready, in kubectl get providers');
    assert.match(table.split('\n')[0], /^NAME\s+TYPE\s+READY\s+RESOURCES\s+AGE$/);

    assert.equal(await ready('lab', 'reason'), 'CheckPassed');
    assert.match(await ready('lab', 'message'), /found postgres [\d.]+, mariadbd .+, redis-server [\d.]+, nats-server [\d.]+, haproxy [\d.]+/);
    // Every type is installed (TypeNotInstalled is covered by controllers/provider/readiness.test.ts): the aws check itself refuses the spec.
    assert.equal(await ready('cloud', 'reason'), 'InvalidSpec');
    assert.match(await ready('cloud', 'message'), /^spec\.region is not set: want the AWS region resources are made in/);
    assert.match(await kubectlOk(s, ['get', 'provider', 'cloud', ...ns, '-o', 'wide']), /^cloud\s+aws\s+False\s+0\s+InvalidSpec\s+<none>\s+\S+$/m);

    // redis-server goes away: the next check (on any change of the Provider) says so.
    unlinkSync(redisLink);
    await kubectlOk(s, ['annotate', 'provider', 'lab', ...ns, 'example.com/recheck=1', '--overwrite']);
    await eventually(async () => (await ready('lab', 'status')) === 'False', 'lab Ready=False after redis-server went away');
    assert.equal(await ready('lab', 'reason'), 'ProgramsMissing');
    assert.match(
      await ready('lab', 'message'),
      new RegExp(`redis-server \\(needed by LocalRedisInstance\\): redis-server path "${redisLink}" \\(from CONDUCTOR_REDIS_BIN\\) is not an executable file`),
    );
    assert.doesNotMatch(
      await ready('lab', 'message'),
      /mariadbd \(needed|nats-server \(needed|haproxy \(needed|postgres\/initdb \(needed/,
      'only the missing program is named',
    );
    assert.match(await kubectlOk(s, ['get', 'providers', ...ns]), /^lab\s+local\s+False\s+0\s+\S+$/m);

    // Back again: Ready again.
    symlinkSync(realRedis, redisLink);
    await kubectlOk(s, ['annotate', 'provider', 'lab', ...ns, 'example.com/recheck=2', '--overwrite']);
    await eventually(async () => (await ready('lab', 'status')) === 'True', 'lab Ready again once redis-server is back');
  });

  test('a Provider of type memory is Ready, counts the MemoryDatabases naming it, and serves a claim provisioned from a class naming it', async () => {
    const s = suite.server;
    await kubectlOk(s, [
      'wait',
      '--for=condition=Established',
      'crd/providers.core.conductor.io',
      'crd/memorydatabases.database.memory.conductor.io',
      'crd/resourceclasses.core.conductor.io',
      'crd/postgresqlinstances.storage.conductor.io',
      '--timeout=60s',
    ]);
    await kubectlOk(s, ['create', 'namespace', 'mem-team']);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: mem, namespace: conductor-system}
spec: {type: memory}
---
apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: db-1, namespace: conductor-system}
spec: {version: "16.4", providerRef: {name: mem}}
---
apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: db-2, namespace: conductor-system}
spec: {version: "16.4", providerRef: {name: mem}}
`,
    });
    const providers = async () => kubectlOk(s, ['get', 'providers', ...ns]);
    await eventually(async () => /^mem\s+memory\s+True\s+2\s+\S+$/m.test(await providers()), 'mem Ready with 2 resources');
    assert.equal(await ready('mem', 'reason'), 'CheckPassed');
    assert.equal(await ready('mem', 'message'), 'the memory provider is installed and needs nothing more');

    // RESOURCES follows the resources naming the Provider.
    await kubectlOk(s, ['delete', 'memorydatabase', 'db-2', ...ns, '--wait=true']);
    await eventually(async () => /^mem\s+memory\s+True\s+1\s+\S+$/m.test(await providers()), 'RESOURCES down to 1');

    // A claim provisioned from a class naming the memory Provider: bound to a new MemoryDatabase of that Provider.
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: mem-class, namespace: conductor-system}
resourceClass: mem-only
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
providerRef: {name: mem}
template:
  apiVersion: database.memory.conductor.io/v1alpha1
  kind: MemoryDatabase
  spec: {version: "16.4"}
---
apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: app-db, namespace: mem-team}
spec: {version: ">= 15", resourceClass: mem-only}
`,
    });
    const claim = (path: string) => kubectlOk(s, ['get', 'postgresqlinstance', 'app-db', '-n', 'mem-team', '-o', `jsonpath={${path}}`]);
    await eventually(async () => (await claim('.status.phase')) === 'Bound', 'the claim Bound');
    await eventually(async () => (await claim('.status.conditions[?(@.type=="Ready")].status')) === 'True', 'the claim Ready');
    const bound = await claim('.status.resourceRef.name');
    assert.equal(await kubectlOk(s, ['get', 'memorydatabase', bound, ...ns, '-o', 'jsonpath={.spec.providerRef.name}']), 'mem');
    await eventually(async () => /^mem\s+memory\s+True\s+2\s+\S+$/m.test(await providers()), 'RESOURCES up to 2 with the provisioned one');
  });
});
