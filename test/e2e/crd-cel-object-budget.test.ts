/**
 * Kubernetes' per-object CEL budget, with the real kubectl: a CRD whose three rules on each
 * item's list of at most 200 integers pass the static estimate is accepted; every single rule
 * evaluation stays under the per-call limit (1,000,000), but on an object with 20 items their
 * sum goes over the per-object budget (10,000,000) — refused with a 422 naming the field and
 * saying the validation ran out of cost budget, nothing stored; an object with a few items is
 * stored.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';

const RULES = ['x <= y || x > y', 'x < y || x >= y', 'x == y || x != y'].map((body) => `self.all(x, self.all(y, ${body}))`);

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: grids.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: grids, singular: grid, kind: Grid}
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
                items:
                  type: array
                  maxItems: 20
                  items:
                    type: object
                    properties:
                      values:
                        type: array
                        maxItems: 200
                        items: {type: integer}
                        x-kubernetes-validations:
${RULES.map((r) => `                          - rule: "${r}"`).join('\n')}
`;

const values = `[${Array.from({ length: 200 }, (_, i) => i).join(', ')}]`;
const grid = (name: string, items: number) =>
  `apiVersion: example.com/v1\nkind: Grid\nmetadata: {name: ${name}, namespace: default}\nspec:\n  items:\n${Array.from({ length: items }, () => `    - values: ${values}`).join('\n')}\n`;

describe('the per-object CEL cost budget', () => {
  const s = serverForSuite();

  test('rules each under the per-call limit whose sum on one object exceeds the per-object budget: 422 naming the field, nothing stored; fewer items stored', async () => {
    await kubectlOk(s.server, ['apply', '-f', '-'], { input: crd });
    await kubectlOk(s.server, ['wait', '--for=condition=Established', 'crd/grids.example.com', '--timeout=30s']);

    await kubectlOk(s.server, ['create', '-f', '-'], { input: grid('small', 4) });

    const big = await kubectl(s.server, ['create', '-f', '-'], { input: grid('big', 20) });
    assert.notEqual(big.code, 0);
    assert.match(
      big.stderr,
      /is invalid: spec\.items\[\d+\]\.values: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run/,
    );
    assert.doesNotMatch(big.stderr, /InternalError|500/);

    assert.equal((await kubectl(s.server, ['get', 'grid', 'big', '-n', 'default'])).code, 1, 'nothing was stored');
    assert.match(await kubectlOk(s.server, ['get', 'grid', 'small', '-n', 'default', '-o', 'name']), /grid\.example\.com\/small/);
  });
});
