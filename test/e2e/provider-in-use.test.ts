/**
 * A Provider cannot be deleted while concrete resources name it: the API answers 409 naming
 * them, and the deletion goes through once they are gone.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';

describe('a Provider in use', () => {
  const suite = serverForSuite({ env: { CONDUCTOR_CONTROLLERS: 'false' } });

  test('kubectl delete is refused with the users named, and works once they are deleted', async () => {
    const s = suite.server;
    await kubectlOk(s, [
      'wait',
      '--for=condition=Established',
      'crd/providers.core.conductor.io',
      'crd/memorydatabases.database.memory.conductor.io',
      '--timeout=30s',
    ]);
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: lab, namespace: conductor-system}
spec: {type: local}
---
apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: spare, namespace: conductor-system}
spec: {type: local}
---
apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: db-1, namespace: conductor-system}
spec: {version: "16.4", providerRef: {name: lab}}
`,
    });
    const refused = await kubectl(s, ['delete', 'provider', 'lab', '-n', 'conductor-system']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /is used by 1 resource\(s\): MemoryDatabase\/db-1; delete them \(or change their spec.providerRef\) first/);
    assert.match(await kubectlOk(s, ['get', 'provider', 'lab', '-n', 'conductor-system', '-o', 'name']), /provider.core.conductor.io\/lab/);

    // A provider nobody uses goes at once; the used one once its resource is gone.
    await kubectlOk(s, ['delete', 'provider', 'spare', '-n', 'conductor-system']);
    await kubectlOk(s, ['delete', 'memorydatabase', 'db-1', '-n', 'conductor-system']);
    await kubectlOk(s, ['delete', 'provider', 'lab', '-n', 'conductor-system']);
    const gone = await kubectl(s, ['get', 'provider', 'lab', '-n', 'conductor-system']);
    assert.match(gone.stderr, /NotFound/);
  });
});
