import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { ProviderCheck, ProviderModule, ProviderType } from '../../providers/spi.js';
import { providerReadiness } from './readiness.js';

const provider = (type?: string): KObject => ({
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'Provider',
  metadata: { namespace: 'conductor-system', name: 'p' },
  spec: type === undefined ? {} : { type },
});
const module = (type: ProviderType, check?: ProviderModule['check']): ProviderModule => ({ type, kinds: [], ...(check ? { check } : {}) });
const deadlines = { timeoutMs: 60_000 };

describe('providerReadiness', () => {
  const cases: {
    reason: string;
    provider: KObject;
    modules: ProviderModule[];
    credentials?: Parameters<typeof providerReadiness>[2];
    want: ProviderCheck | RegExp;
  }[] = [
    {
      reason: 'a type no module provides is not installed',
      provider: provider('gcp'),
      modules: [module('local')],
      want: /TypeNotInstalled: no provider of type "gcp" is installed in this Conductor \(installed types: local\)/,
    },
    {
      reason: 'a local Provider is not served by the memory module: each has its own type',
      provider: provider('local'),
      modules: [module('memory')],
      want: /TypeNotInstalled: no provider of type "local" is installed in this Conductor \(installed types: memory\)/,
    },
    {
      reason: 'a memory Provider is ready with the memory module, which has no check',
      provider: provider('memory'),
      modules: [module('local', async () => ({ ready: false, reason: 'ProgramsMissing', message: 'redis-server is missing' })), module('memory')],
      want: { ready: true, message: 'the memory provider is installed and needs nothing more' },
    },
    {
      reason: 'no type at all is an invalid spec',
      provider: provider(),
      modules: [module('local')],
      want: /InvalidSpec: spec.type is missing: want one of local, memory, kubernetes, gcp, azure, aws/,
    },
    {
      reason: 'a missing credentials Secret',
      provider: provider('local'),
      modules: [module('local')],
      credentials: { kind: 'missing', secret: 'ns/creds' },
      want: /CredentialsNotFound: the credentials Secret ns\/creds named by spec.credentialsSecretRef does not exist/,
    },
    {
      reason: 'a module without check is ready',
      provider: provider('local'),
      modules: [module('local')],
      want: { ready: true, message: 'the local provider is installed and needs nothing more' },
    },
    {
      reason: 'every module of the type must pass; the first failing one answers',
      provider: provider('local'),
      modules: [
        module('local', async () => ({ ready: true, message: 'found a' })),
        module('local', async () => ({ ready: false, reason: 'ProgramsMissing', message: 'b is missing' })),
      ],
      want: { ready: false, reason: 'ProgramsMissing', message: 'b is missing' },
    },
    {
      reason: 'a check that throws is CheckFailed',
      provider: provider('local'),
      modules: [module('local', async () => Promise.reject(new Error('boom')))],
      want: /CheckFailed: the local provider's check failed: boom/,
    },
    {
      reason: 'a verdict with a Retry-After is Throttled, its wait bounded to 5 minutes and said in the message',
      provider: provider('aws'),
      modules: [module('aws', async () => ({ ready: false, reason: 'RequestFailed', message: 'AWS answered 503', retryAfterSeconds: 3600 }))],
      want: { ready: false, reason: 'Throttled', message: "AWS answered 503; retrying in 5m (the cloud's Retry-After)", retryAfterSeconds: 300 },
    },
    {
      reason: 'a verdict that already says its wait keeps its message',
      provider: provider('gcp'),
      modules: [
        module('gcp', async () => ({
          ready: false,
          reason: 'Throttled',
          message: 'a quota or rate limit; throttled by Google Cloud; retrying in 30s',
          retryAfterSeconds: 30,
        })),
      ],
      want: { ready: false, reason: 'Throttled', message: 'a quota or rate limit; throttled by Google Cloud; retrying in 30s', retryAfterSeconds: 30 },
    },
    {
      reason: 'a check that throws an error carrying a Retry-After is Throttled, not CheckFailed',
      provider: provider('azure'),
      modules: [module('azure', async () => Promise.reject(Object.assign(new Error('429 Too Many Requests'), { retryAfterSeconds: 0.2 })))],
      want: {
        ready: false,
        reason: 'Throttled',
        message: "the azure provider's check was throttled: 429 Too Many Requests; retrying in 1s (the cloud's Retry-After)",
        retryAfterSeconds: 1,
      },
    },
    {
      reason: 'a check never quotes a credential',
      provider: provider('local'),
      modules: [module('local', async (_p, c) => ({ ready: false, reason: 'Unauthenticated', message: `key ${c.credentials?.key} was refused` }))],
      credentials: { kind: 'found', data: { key: 's3cr3t-value' } },
      want: { ready: false, reason: 'Unauthenticated', message: 'key [redacted] was refused' },
    },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const got = await providerReadiness(c.provider, c.modules, c.credentials ?? { kind: 'none' }, deadlines);
      if (c.want instanceof RegExp) assert.match(got.ready ? 'ready' : `${got.reason}: ${got.message}`, c.want);
      else assert.deepEqual(got, c.want);
    });
  }

  test('a check that hangs is cancelled through its signal at the deadline', async () => {
    let signal: AbortSignal | undefined;
    const hanging = module('local', (_p, context) => {
      signal = context.signal;
      return new Promise<ProviderCheck>(() => {});
    });
    const got = await providerReadiness(provider('local'), [hanging], { kind: 'none' }, { timeoutMs: 50 });
    assert.equal(got.ready, false);
    assert.match(
      got.ready ? '' : `${got.reason}: ${got.message}`,
      /CheckFailed: .*provider call check on Provider\/conductor-system\/p did not finish in 50ms; cancelled/,
    );
    assert.equal(signal?.aborted, true);
  });
});
