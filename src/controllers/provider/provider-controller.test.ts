/**
 * ProviderController against the FakeClient, with a provider module whose `check` counts its
 * calls: concrete resources coming, going and changing their providerRef move `resources`
 * without running the check again, and the Provider is read from the cache, never fetched;
 * the check runs again when the Provider changes (spec, annotations), when its credentials
 * Secret appears, changes or goes, and every `recheckMs`.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { FakeClient } from '../../client/testing/index.js';
import { builtinRefs } from '../../client/types.js';
import { providerKind } from '../../apis/core/kinds.js';
import type { Condition, KObject } from '../../machinery/object.js';
import type { ProviderCheck, ProviderCheckContext, ProviderModule } from '../../providers/spi.js';
import { createMemoryProvider, memoryDatabaseKind } from '../../providers/memory/index.js';
import { eventually } from '../../../test/support/eventually.js';
import { ProviderController, type ProviderControllerOptions } from './provider-controller.js';

const SYS = 'conductor-system';
const HOUR = 3_600_000;
const providers = providerKind.ref;
const databases = memoryDatabaseKind.ref;

/** A memory provider module whose check counts its calls per Provider and answers with `verdict`. */
class CountingModule {
  readonly calls = new Map<string, number>();
  constructor(
    private readonly verdict: (provider: KObject, context: ProviderCheckContext, n: number) => ProviderCheck = (_p, _c, n) => ({
      ready: true,
      message: `check ${n}`,
    }),
  ) {}

  module(): ProviderModule {
    return {
      type: 'memory',
      kinds: createMemoryProvider().kinds,
      check: async (provider, context) => {
        const n = (this.calls.get(provider.metadata.name ?? '') ?? 0) + 1;
        this.calls.set(provider.metadata.name ?? '', n);
        return this.verdict(provider, context, n);
      },
    };
  }

  of(name: string): number {
    return this.calls.get(name) ?? 0;
  }
}

const running: ProviderController[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop();
});

function start(fake: FakeClient, counting: CountingModule, options: ProviderControllerOptions = {}): ProviderController {
  const controller = new ProviderController(fake, [counting.module()], { recheckMs: HOUR, ...options }).start();
  running.push(controller);
  return controller;
}

function provider(name: string, spec: Record<string, unknown> = {}): KObject {
  return providerKind.make({ metadata: { name, namespace: SYS }, spec: { type: 'memory', ...spec } });
}

function database(name: string, providerName: string): KObject {
  return {
    apiVersion: `${databases.group}/${databases.version}`,
    kind: databases.kind,
    metadata: { name, namespace: SYS },
    spec: { version: '16.4', providerRef: { name: providerName } },
  };
}

interface ProviderStatus {
  resources?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

function statusOf(fake: FakeClient, name: string): ProviderStatus {
  const p = fake.stored(providers, SYS).find((o) => o.metadata.name === name);
  return p?.status ?? {};
}

function readyOf(fake: FakeClient, name: string): Condition | undefined {
  return statusOf(fake, name).conditions?.find((c) => c.type === 'Ready');
}

/** Waits until `probe` holds for the stored status of `name`. */
async function statusWhere(fake: FakeClient, name: string, what: string, probe: (s: ProviderStatus, ready: Condition | undefined) => boolean): Promise<void> {
  await eventually(() => probe(statusOf(fake, name), readyOf(fake, name)), `Provider ${name}: ${what}`);
}

const secret = (token: string): KObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'creds', namespace: SYS },
  type: 'Opaque',
  data: { token: Buffer.from(token).toString('base64') },
});

describe('ProviderController', () => {
  test('resources added, deleted and moved to another Provider only recount RESOURCES: the check is not run again, the Provider is never fetched', async () => {
    const fake = new FakeClient();
    const counting = new CountingModule();
    await fake.create(providers, provider('p'));
    await fake.create(providers, provider('q'));
    start(fake, counting);
    await statusWhere(fake, 'p', 'Ready, 0 resources', (s, r) => r?.status === 'True' && s.resources === 0);
    await statusWhere(fake, 'q', 'Ready, 0 resources', (s, r) => r?.status === 'True' && s.resources === 0);

    for (const name of ['db-1', 'db-2', 'db-3']) await fake.create(databases, database(name, 'p'));
    await fake.create(databases, database('db-q', 'q'));
    await statusWhere(fake, 'p', '3 resources', (s) => s.resources === 3);
    await statusWhere(fake, 'q', '1 resource', (s) => s.resources === 1);
    await fake.delete(databases, 'db-2', { namespace: SYS });
    await statusWhere(fake, 'p', '2 resources after a delete', (s) => s.resources === 2);
    await fake.patch(databases, 'db-3', 'merge', { spec: { providerRef: { name: 'q' } } }, { namespace: SYS });
    await statusWhere(fake, 'p', '1 resource after a move', (s) => s.resources === 1);
    await statusWhere(fake, 'q', '2 resources after a move', (s) => s.resources === 2);

    assert.equal(counting.of('p'), 1, 'p was checked once, when it appeared');
    assert.equal(counting.of('q'), 1, 'q was checked once, when it appeared');
    assert.equal(readyOf(fake, 'p')?.reason, 'CheckPassed');
    assert.equal(readyOf(fake, 'p')?.message, 'check 1', 'the verdict of the one check is kept');
    assert.deepEqual(
      fake.actions.filter((a) => a.verb === 'get' && a.resource === 'providers'),
      [],
      'Providers are read from the informer cache',
    );
  });

  test('a change of the Provider runs the check again: its spec (a new generation) and its annotations', async () => {
    const fake = new FakeClient();
    const counting = new CountingModule();
    await fake.create(providers, provider('p'));
    start(fake, counting);
    await statusWhere(fake, 'p', 'checked once', (_s, r) => r?.message === 'check 1');

    await fake.patch(providers, 'p', 'merge', { spec: { region: 'eu-west-1' } }, { namespace: SYS });
    await statusWhere(
      fake,
      'p',
      'checked again at generation 2',
      (s, r) => r?.message === 'check 2' && s.observedGeneration === 2 && r.observedGeneration === 2,
    );
    await fake.patch(providers, 'p', 'merge', { metadata: { annotations: { 'example.com/recheck': '1' } } }, { namespace: SYS });
    await statusWhere(fake, 'p', 'checked again after an annotation', (_s, r) => r?.message === 'check 3');

    await fake.create(databases, database('db-1', 'p'));
    await statusWhere(fake, 'p', '1 resource', (s) => s.resources === 1);
    assert.equal(counting.of('p'), 3);
  });

  test('its credentials Secret appearing, changing and going runs the check again', async () => {
    const fake = new FakeClient();
    const counting = new CountingModule((_p, context) =>
      context.credentials?.token === 'good'
        ? { ready: true, message: 'the token works' }
        : { ready: false, reason: 'Unauthenticated', message: 'the token was refused' },
    );
    await fake.create(providers, provider('p', { credentialsSecretRef: { name: 'creds' } }));
    start(fake, counting);
    await statusWhere(fake, 'p', 'CredentialsNotFound', (_s, r) => r?.reason === 'CredentialsNotFound');

    await fake.create(builtinRefs.secrets, secret('bad'));
    await statusWhere(fake, 'p', 'Unauthenticated once the Secret exists', (_s, r) => r?.reason === 'Unauthenticated');
    const current = await fake.get(builtinRefs.secrets, 'creds', SYS);
    await fake.update(builtinRefs.secrets, { ...current, data: secret('good').data });
    await statusWhere(fake, 'p', 'Ready once the token is good', (_s, r) => r?.status === 'True' && r.message === 'the token works');
    await fake.delete(builtinRefs.secrets, 'creds', { namespace: SYS });
    await statusWhere(fake, 'p', 'CredentialsNotFound once the Secret is gone', (_s, r) => r?.reason === 'CredentialsNotFound');
    assert.equal(counting.of('p'), 2, 'the module checked the bad and the good token');
  });

  test('every recheckMs the check runs again, with nothing changed', async () => {
    const fake = new FakeClient();
    const counting = new CountingModule();
    await fake.create(providers, provider('p'));
    start(fake, counting, { recheckMs: 50 });
    await statusWhere(fake, 'p', 'checked at least three times', (_s, r) => counting.of('p') >= 3 && r?.message === `check ${counting.of('p')}`);
  });

  test('a check throttled with a Retry-After is Throttled, says the wait, and runs again after it, not at recheckMs', async () => {
    const fake = new FakeClient();
    // The first check of each Provider is throttled: 'soon' asks for 1 s, 'later' for 300 s.
    const waits: Record<string, number> = { soon: 1, later: 300 };
    const counting = new CountingModule((p, _c, n) =>
      n === 1
        ? {
            ready: false,
            reason: 'Throttled',
            message: 'cannot call STS GetCallerIdentity: AWS answered 400 Throttling: Rate exceeded',
            retryAfterSeconds: waits[p.metadata.name ?? ''],
          }
        : { ready: true, message: `check ${n}` },
    );
    await fake.create(providers, provider('soon'));
    start(fake, counting); // recheckMs: an hour
    await statusWhere(
      fake,
      'soon',
      'Throttled, saying the wait',
      (_s, r) => r?.reason === 'Throttled' && /; retrying in 1s \(the cloud's Retry-After\)$/.test(r.message ?? ''),
    );
    await statusWhere(
      fake,
      'soon',
      'checked again after the Retry-After, though recheckMs is an hour',
      (_s, r) => r?.status === 'True' && r.message === 'check 2',
    );

    // A Retry-After longer than recheckMs is honoured too: no check at the usual cadence meanwhile.
    const fake2 = new FakeClient();
    const counting2 = new CountingModule((p, _c, n) =>
      n === 1 ? { ready: false, reason: 'Throttled', message: 'throttled', retryAfterSeconds: waits[p.metadata.name ?? ''] } : { ready: true },
    );
    await fake2.create(providers, provider('later'));
    start(fake2, counting2, { recheckMs: 20 });
    await statusWhere(
      fake2,
      'later',
      'Throttled for 5 minutes',
      (_s, r) => r?.reason === 'Throttled' && r.message === "throttled; retrying in 5m (the cloud's Retry-After)",
    );
    await new Promise((r) => setTimeout(r, 300)); // 15 × recheckMs
    assert.equal(counting2.of('later'), 1, 'not checked again before the Retry-After');
    assert.equal(readyOf(fake2, 'later')?.reason, 'Throttled');
  });

  test('a Provider deleted and created again under the same name is checked again', async () => {
    const fake = new FakeClient();
    const counting = new CountingModule();
    await fake.create(providers, provider('p'));
    start(fake, counting);
    await statusWhere(fake, 'p', 'checked once', (_s, r) => r?.message === 'check 1');
    await fake.delete(providers, 'p', { namespace: SYS });
    await fake.create(providers, provider('p'));
    await statusWhere(fake, 'p', 'checked again', (_s, r) => r?.message === 'check 2');
  });
});
