import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  acceptsJson,
  discoveryContentType,
  DISCOVERY_V2_CONTENT_TYPE,
  DISCOVERY_V2BETA1_CONTENT_TYPE,
  etagMatches,
  negotiateDiscovery,
  negotiateOpenApiV2,
  parseAccept,
  type DiscoveryFormat,
} from './negotiate.js';

const CLIENT_GO =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('negotiateDiscovery', () => {
  const cases: { reason: string; accept: string; want: DiscoveryFormat }[] = [
    { reason: 'client-go (kubectl 1.32) prefers v2', accept: CLIENT_GO, want: 'v2' },
    {
      reason: 'an older client asking for v2beta1 first',
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
      want: 'v2beta1',
    },
    { reason: 'plain JSON is legacy', accept: 'application/json', want: 'legacy' },
    { reason: 'client-node sends JSON then */*', accept: 'application/json, */*;q=0.8', want: 'legacy' },
    { reason: 'an empty header is legacy', accept: '', want: 'legacy' },
    { reason: 'q-values outrank order', accept: `application/json;q=0.9,${DISCOVERY_V2BETA1_CONTENT_TYPE}`, want: 'v2beta1' },
    { reason: 'q=0 excludes a clause', accept: `${DISCOVERY_V2_CONTENT_TYPE};q=0,application/json`, want: 'legacy' },
    {
      reason: 'the nopeer profile is served like v2 (a single server has no peers)',
      accept: `${DISCOVERY_V2_CONTENT_TYPE};profile=nopeer,application/json`,
      want: 'v2',
    },
    {
      reason: 'an unknown profile is passed over',
      accept: `${DISCOVERY_V2_CONTENT_TYPE};profile=other,application/json`,
      want: 'legacy',
    },
    {
      reason: 'protobuf discovery is passed over',
      accept: `application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,${DISCOVERY_V2BETA1_CONTENT_TYPE}`,
      want: 'v2beta1',
    },
    { reason: 'an unknown discovery version is passed over', accept: 'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList', want: 'legacy' },
    { reason: 'parameter order and spacing do not matter', accept: 'application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io', want: 'v2' },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.equal(negotiateDiscovery(c.accept), c.want));
  }

  test('never throws and always answers one of the three formats', () => {
    fc.assert(
      fc.property(fc.string(), (accept) => {
        assert.ok(['v2', 'v2beta1', 'legacy'].includes(negotiateDiscovery(accept)));
      }),
    );
  });
});

describe('discoveryContentType', () => {
  test('names the aggregated kind in its parameters', () => {
    assert.equal(discoveryContentType('v2'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    assert.equal(discoveryContentType('v2beta1'), 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    assert.equal(discoveryContentType('legacy'), 'application/json');
  });
  test('what is answered is what is negotiated', () => {
    for (const f of ['v2', 'v2beta1', 'legacy'] as const) assert.equal(negotiateDiscovery(discoveryContentType(f)), f);
  });
});

describe('acceptsJson', () => {
  const cases: { reason: string; accept: string | undefined; want: boolean }[] = [
    { reason: 'client-go asks /openapi/v2 for protobuf only', accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', want: false },
    { reason: 'client-go asks /openapi/v3 docs for JSON', accept: 'application/json', want: true },
    { reason: 'a wildcard admits JSON', accept: '*/*', want: true },
    { reason: 'no header admits JSON', accept: undefined, want: true },
    { reason: 'protobuf first, JSON as fallback', accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json;q=0.5', want: true },
    { reason: 'a JSON clause asking for another kind is not plain JSON', accept: 'application/json;as=Table;g=meta.k8s.io;v=v1', want: false },
    { reason: 'q=0 refuses JSON', accept: 'application/json;q=0', want: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(acceptsJson(c.accept), c.want));
});

describe('parseAccept', () => {
  test('orders by q descending and keeps client order for ties', () => {
    const got = parseAccept('text/plain;q=0.5, application/json, application/yaml;q=0.5, */*;q=0.1');
    assert.deepEqual(
      got.map((r) => `${r.type}/${r.subtype}@${r.q}`),
      ['application/json@1', 'text/plain@0.5', 'application/yaml@0.5', '*/*@0.1'],
    );
  });
  test('skips malformed clauses and unquotes values', () => {
    const got = parseAccept('nonsense, application/json;v="v2", /x');
    assert.deepEqual(got, [{ type: 'application', subtype: 'json', params: { v: 'v2' }, q: 1 }]);
  });
  test('q is always within [0, 1] and the result is sorted', () => {
    fc.assert(
      fc.property(fc.string(), (header) => {
        const ranges = parseAccept(header);
        for (let i = 0; i < ranges.length; i++) {
          assert.ok(ranges[i].q >= 0 && ranges[i].q <= 1);
          if (i > 0) assert.ok(ranges[i - 1].q >= ranges[i].q);
        }
      }),
    );
  });
});

describe('negotiateOpenApiV2', () => {
  const cases: { reason: string; accept: string | undefined; want: 'json' | 'protobuf' | undefined }[] = [
    {
      reason: 'client-go (kubectl 1.27–1.33) asks for the older protobuf name only',
      accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
      want: 'protobuf',
    },
    { reason: 'the current protobuf name', accept: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', want: 'protobuf' },
    { reason: 'no Accept header means anything: JSON', accept: undefined, want: 'json' },
    { reason: 'a wildcard is answered with JSON', accept: '*/*', want: 'json' },
    { reason: 'the preferred clause wins', accept: 'application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', want: 'protobuf' },
    { reason: 'q=0 refuses', accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0', want: undefined },
    { reason: 'nothing acceptable', accept: 'application/yaml, text/html', want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(negotiateOpenApiV2(c.accept), c.want));
});

describe('etagMatches', () => {
  test('matches the quoted hash, in a list, weak, or *', () => {
    assert.equal(etagMatches('"ABC"', 'ABC'), true);
    assert.equal(etagMatches('"X", W/"ABC"', 'ABC'), true);
    assert.equal(etagMatches('*', 'ABC'), true);
    assert.equal(etagMatches(['"X"', '"ABC"'], 'ABC'), true);
  });
  test('does not match another tag, an unquoted hash or no header', () => {
    assert.equal(etagMatches('"ABD"', 'ABC'), false);
    assert.equal(etagMatches('ABC', 'ABC'), false);
    assert.equal(etagMatches(undefined, 'ABC'), false);
  });
});
