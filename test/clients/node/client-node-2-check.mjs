// Drives a Conductor server with @kubernetes/client-node 2.x (installed as the npm alias
// @kubernetes/client-node-2; it needs Node 22+, so test/e2e/client-node-2.test.ts runs this
// file under a newer node than the tests' own).
//
// Usage: node client-node-2-check.mjs <kubeconfig> <step> [arguments...]
// Each step prints JSON documents, one a line, on stdout; an unexpected answer throws (non-zero exit).
//   version                 the node and client versions
//   pages <ns> <limit>      lists the namespace's ConfigMaps <limit> at a time, following `continue`
//   informer <ns>           an informer on the namespace's ConfigMaps: prints every add/update/delete/error
//                           as it happens; on an error it starts again after 200 ms (the documented way
//                           to keep an informer running). Stops when stdin closes, printing its cache.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import * as k8s from '@kubernetes/client-node-2';

const emit = (doc) => process.stdout.write(`${JSON.stringify(doc)}\n`);
const [kubeconfig, step, ...args] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(k8s.CoreV1Api);

function clientVersion() {
  const entry = fileURLToPath(import.meta.resolve('@kubernetes/client-node-2'));
  return JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')).version;
}

async function pages(namespace, limit) {
  const seen = [];
  let cont;
  let count = 0;
  let remaining = [];
  do {
    const page = await core.listNamespacedConfigMap({ namespace, limit: Number(limit), _continue: cont });
    count++;
    seen.push(...page.items.map((i) => i.metadata.name));
    remaining.push(page.metadata?.remainingItemCount ?? null);
    cont = page.metadata?._continue || undefined;
  } while (cont);
  emit({ pages: count, names: seen, remainingItemCount: remaining });
}

async function informer(namespace) {
  const inf = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
  for (const event of ['add', 'update', 'delete']) {
    inf.on(event, (o) => emit({ event, name: o.metadata.name, resourceVersion: o.metadata.resourceVersion }));
  }
  inf.on('error', (err) => {
    emit({ event: 'error', message: String(err?.message ?? err) });
    setTimeout(() => inf.start().catch((e) => emit({ event: 'error', message: String(e?.message ?? e) })), 200);
  });
  await inf.start();
  emit({ event: 'started' });
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await inf.stop();
    emit({
      event: 'stopped',
      cached: inf
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    });
    process.exit(0);
  });
}

const steps = {
  version: async () => emit({ node: process.version, clientNode: clientVersion() }),
  pages,
  informer,
};
if (!steps[step]) {
  process.stderr.write(`unknown step ${step}; steps: ${Object.keys(steps).join(', ')}\n`);
  process.exit(2);
}
await steps[step](...args);
