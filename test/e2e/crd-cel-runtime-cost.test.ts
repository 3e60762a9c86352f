/**
 * The runtime CEL cost limit, with the real kubectl: a CRD whose rule passes the static
 * estimate (a nested comprehension over a list of at most 700 integers) is accepted; an
 * object with a few items passes the rule, and one with 700 items makes the rule cost more
 * than Kubernetes' per-call limit (1,000,000) when it runs — refused with a 422 naming the
 * field and the rule ("call cost exceeds limit for rule"), nothing stored, the server fine.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';

const RULE = 'self.all(x, self.all(y, x <= y || x > y))';

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: matrices.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: matrices, singular: matrix, kind: Matrix}
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
                values:
                  type: array
                  maxItems: 700
                  items: {type: integer}
                  x-kubernetes-validations:
                    - rule: "${RULE}"
`;

const matrix = (name: string, n: number) =>
  `apiVersion: example.com/v1\nkind: Matrix\nmetadata: {name: ${name}, namespace: default}\nspec:\n  values: [${Array.from({ length: n }, (_, i) => i).join(', ')}]\n`;

describe('the runtime CEL cost limit', () => {
  const s = serverForSuite();

  test('a rule cheap by estimate is stopped at the per-call limit on an object that makes it expensive: 422 naming the field and the rule', async () => {
    await kubectlOk(s.server, ['apply', '-f', '-'], { input: crd });
    await kubectlOk(s.server, ['wait', '--for=condition=Established', 'crd/matrices.example.com', '--timeout=30s']);

    await kubectlOk(s.server, ['create', '-f', '-'], { input: matrix('small', 20) });

    const big = await kubectl(s.server, ['create', '-f', '-'], { input: matrix('big', 700) });
    assert.notEqual(big.code, 0);
    assert.match(
      big.stderr,
      /is invalid: spec\.values: Invalid value: "array": call cost exceeds limit for rule: self\.all\(x, self\.all\(y, x <= y \|\| x > y\)\)/,
    );
    assert.doesNotMatch(big.stderr, /InternalError|500/);

    assert.equal((await kubectl(s.server, ['get', 'matrix', 'big', '-n', 'default'])).code, 1, 'nothing was stored');
    assert.match(await kubectlOk(s.server, ['get', 'matrix', 'small', '-n', 'default', '-o', 'name']), /matrix\.example\.com\/small/);
  });
});
