/**
 * The API server estimates CEL rule costs when a CRD is written, as Kubernetes does: kubectl
 * gets Kubernetes' 422 and message for a rule over its budget, and the same CRD with bounds
 * (maxItems, maxLength) is accepted and its rule enforced.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';

const crd = (bounds: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                names:
                  type: array
                  ${bounds}
                  items: {type: string${bounds ? ', maxLength: 63' : ''}}
                  x-kubernetes-validations:
                    - rule: "self.all(x, self.exists_one(y, x == y))"
                      message: names must be unique
`;

describe('CEL cost budgets when a CRD is written', () => {
  const s = serverForSuite();

  test('a rule with a nested comprehension over an unbounded list is refused with the message Kubernetes gives', async () => {
    const r = await kubectl(s.server, ['apply', '-f', '-'], { input: crd('') });
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[names\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)/,
    );
    assert.match(r.stderr, /x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget/);
    assert.equal((await kubectl(s.server, ['get', 'crd', 'gadgets.example.com'])).code, 1, 'nothing was stored');
  });

  test('bounded, the same rule is accepted and enforced', async () => {
    await kubectlOk(s.server, ['apply', '-f', '-'], { input: crd('maxItems: 20') });
    await kubectlOk(s.server, ['wait', '--for=condition=Established', 'crd/gadgets.example.com', '--timeout=30s']);
    const bad = await kubectl(s.server, ['apply', '-f', '-'], {
      input: 'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: default}\nspec: {names: [a, a]}\n',
    });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /names must be unique/);
  });
});
