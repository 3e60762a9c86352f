import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseReadyLine } from './server-process.js';

describe('parseReadyLine', () => {
  const cases: { reason: string; input: string; want: ReturnType<typeof parseReadyLine> }[] = [
    {
      reason: 'the ready line gives the URL and kubeconfig path',
      input: 'conductor ready on https://127.0.0.1:40123 (kubeconfig: /tmp/x/kubeconfig)\n',
      want: { url: 'https://127.0.0.1:40123', kubeconfigPath: '/tmp/x/kubeconfig' },
    },
    {
      reason: 'earlier output is skipped',
      input: 'something else\nconductor ready on https://[::1]:6443 (kubeconfig: /d/admin.kubeconfig)\n',
      want: { url: 'https://[::1]:6443', kubeconfigPath: '/d/admin.kubeconfig' },
    },
    { reason: 'a partial line is not ready yet', input: 'conductor ready on https://127.0.0.1:4', want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(parseReadyLine(c.input), c.want));
});
