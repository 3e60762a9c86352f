import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../../machinery/object.js';
import type { MatchCandidate, MatchResult } from '../../spi.js';
import type { LocalListener } from './kinds.js';
import { configureListener, listenerMatcher } from './matchers.js';
import { fixture } from '../../testing.js';

const claim = (spec: Record<string, unknown>): KObject => ({
  apiVersion: 'network.conductor.io/v1alpha1',
  kind: 'LoadBalancer',
  metadata: { name: 'web', namespace: 'app' },
  spec,
});
const resource = (spec: Record<string, unknown>): MatchCandidate<LocalListener> => ({
  type: 'resource',
  resource: fixture<LocalListener>({
    apiVersion: 'network.local.conductor.io/v1alpha1',
    kind: 'HAProxyLoadBalancer',
    metadata: { name: 'lb', namespace: 'sys' },
    spec,
  }),
});
const klass: MatchCandidate<LocalListener> = {
  type: 'class',
  resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'silver', namespace: 'sys' } },
  template: { apiVersion: 'network.local.conductor.io/v1alpha1', kind: 'HAProxyLoadBalancer', spec: {} },
};

describe('listenerMatcher', () => {
  const strict = listenerMatcher({ kind: 'HAProxyLoadBalancer', strictProtocol: true });
  const loose = listenerMatcher({ kind: 'LocalPortForwarder', strictProtocol: false });
  const cases: { reason: string; match: typeof strict; claim: KObject; candidate: MatchCandidate<LocalListener>; want: MatchResult | RegExp }[] = [
    {
      reason: 'a class fits a plain claim',
      match: strict,
      claim: claim({ ports: [80], targets: [{ address: 'a:1' }] }),
      candidate: klass,
      want: { fits: true },
    },
    { reason: 'TLS is not offered', match: strict, claim: claim({ tls: { secretRef: { name: 'cert' } } }), candidate: klass, want: /does not terminate TLS/ },
    { reason: 'HTTPS is not offered', match: loose, claim: claim({ protocol: 'HTTPS' }), candidate: klass, want: /does not terminate TLS/ },
    {
      reason: 'unavailable kinds say why',
      match: listenerMatcher({ kind: 'HAProxyLoadBalancer', strictProtocol: true, unavailable: 'no haproxy' }),
      claim: claim({}),
      candidate: klass,
      want: /unavailable on this machine: no haproxy/,
    },
    {
      reason: 'same targets fit an existing listener',
      match: strict,
      claim: claim({ targets: [{ address: 'b:2' }, { address: 'a:1' }] }),
      candidate: resource({ targets: [{ address: 'a:1' }, { address: 'b:2' }] }),
      want: { fits: true },
    },
    {
      reason: 'other targets do not fit',
      match: strict,
      claim: claim({ targets: [{ address: 'a:1' }] }),
      candidate: resource({ targets: [{ address: 'b:2' }] }),
      want: /forwards to address b:2, claim wants address a:1/,
    },
    {
      reason: "a claim reference is compared in the claim's namespace",
      match: strict,
      claim: claim({ targets: [{ claimRef: { kind: 'RedisCluster', name: 'cache' } }] }),
      candidate: resource({ targets: [{ claimRef: { kind: 'RedisCluster', namespace: 'app', name: 'cache' } }] }),
      want: { fits: true },
    },
    {
      reason: 'haproxy modes must agree',
      match: strict,
      claim: claim({ protocol: 'HTTP' }),
      candidate: resource({ protocol: 'TCP' }),
      want: /speaks TCP, claim wants HTTP/,
    },
    {
      reason: 'the forwarder carries HTTP over TCP',
      match: loose,
      claim: claim({ protocol: 'HTTP' }),
      candidate: resource({ protocol: 'TCP' }),
      want: { fits: true },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = c.match(c.claim, c.candidate);
      if (c.want instanceof RegExp) {
        assert.equal(got.fits, false);
        assert.match((got as { reason: string }).reason, c.want);
      } else assert.deepEqual(got, c.want);
    });
  }
});

describe('configureListener', () => {
  test("claim fields override the template and references get the claim's namespace", () => {
    const template = {
      apiVersion: 'network.local.conductor.io/v1alpha1',
      kind: 'LocalPortForwarder',
      spec: { port: 1, protocol: 'TCP', capabilities: { region: 'eu' } },
    };
    const got = configureListener(
      claim({
        ports: [8080, 9090],
        protocol: 'HTTP',
        targets: [{ address: 'a:1' }, { claimRef: { kind: 'RedisCluster', name: 'c' } }],
        requirements: { region: 'us', cost: 'free' },
      }),
      template,
    );
    assert.deepEqual(got, {
      port: 8080,
      protocol: 'HTTP',
      targets: [{ address: 'a:1' }, { claimRef: { kind: 'RedisCluster', name: 'c', namespace: 'app' } }],
      capabilities: { region: 'eu', cost: 'free' },
    });
    assert.deepEqual(template.spec, { port: 1, protocol: 'TCP', capabilities: { region: 'eu' } }, 'the template is not modified');
  });

  test('a claim with nothing portable keeps the template', () => {
    assert.deepEqual(configureListener(claim({}), { apiVersion: 'v', kind: 'k', spec: { port: 5 } }), { port: 5 });
  });
});
