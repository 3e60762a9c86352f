/**
 * `conductor logs <type>/<name>`: the log of the server or proxy Conductor runs for a concrete
 * resource — or for the resource a claim is bound to — read through the API server's `log`
 * subresource (so it works from another machine, and RBAC decides who may read it).
 */
import { Command, InvalidArgumentError } from 'commander';
import { HttpClient } from '../../client/http-client.js';
import { isApiError } from '../../machinery/errors.js';
import { isPlainObject, type KObject } from '../../machinery/object.js';
import type { ResourceRef } from '../../client/types.js';
import { clientConfig, type KubeconfigFlags } from '../client-config.js';
import { parseTarget, resolveType, TraceArgumentError } from '../trace/resolve.js';

interface LogsFlags extends KubeconfigFlags {
  namespace?: string;
  follow?: boolean;
  tail?: number;
}

function tailLines(value: string): number {
  if (!/^\d{1,9}$/.test(value.trim())) throw new InvalidArgumentError('expected a whole number of lines ≥ 0');
  return Number(value);
}

/** logPath is the `log` subresource's path of a resource, with its query. */
export function logPath(ref: ResourceRef, name: string, namespace: string | undefined, o: { follow?: boolean; tail?: number }): string {
  const base = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  const ns = ref.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const q = new URLSearchParams();
  if (o.follow) q.set('follow', 'true');
  if (o.tail !== undefined) q.set('tailLines', String(o.tail));
  const query = q.size > 0 ? `?${q.toString()}` : '';
  return `${base}${ns}/${ref.resource}/${encodeURIComponent(name)}/log${query}`;
}

async function getOrExplain(client: HttpClient, ref: ResourceRef, name: string, namespace: string | undefined): Promise<KObject> {
  try {
    return await client.get(ref, name, namespace);
  } catch (err) {
    if (isApiError(err) && err.code === 404) {
      throw new TraceArgumentError(`${ref.kind} ${JSON.stringify(name)} not found${namespace ? ` in namespace ${namespace}` : ''}`);
    }
    throw err;
  }
}

/** boundResource follows a claim to the concrete resource its status names. */
async function boundResource(client: HttpClient, claim: KObject): Promise<{ ref: ResourceRef; name: string; namespace?: string }> {
  const status = isPlainObject(claim.status) ? claim.status : {};
  const r = isPlainObject(status.resourceRef) ? status.resourceRef : undefined;
  const what = `${claim.kind} ${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`;
  if (!r || typeof r.apiVersion !== 'string' || typeof r.kind !== 'string' || typeof r.name !== 'string') {
    const phase = typeof status.phase === 'string' ? status.phase : 'Pending';
    throw new TraceArgumentError(`${what} is ${phase} and bound to no resource yet: nothing runs for it (see conductor trace)`);
  }
  let ref: ResourceRef;
  try {
    ref = await client.discover(r.apiVersion, r.kind);
  } catch (err) {
    if (isApiError(err) && err.code === 404) throw new TraceArgumentError(`${what} is bound to a ${r.kind}, a kind the server no longer serves`);
    throw err;
  }
  return { ref, name: r.name, namespace: typeof r.namespace === 'string' ? r.namespace : undefined };
}

export function logsCommand(): Command {
  return new Command('logs')
    .description('Print the log of the server or proxy Conductor runs for a concrete resource, or for the resource a claim is bound to')
    .argument('<type/name>', 'e.g. postgresqlinstance/orders-db (a claim) or localpostgresqlinstance/pg-1 (a concrete resource)')
    .option('-n, --namespace <ns>', "the object's namespace (default: the kubeconfig context's, else default)")
    .option('-f, --follow', 'go on printing what the server logs until interrupted')
    .option('--tail <lines>', 'only the last N lines', tailLines)
    .option('--kubeconfig <path>', 'default: KUBECONFIG, ~/.kube/config, or .conductor/kubeconfig')
    .option('--context <name>', 'the kubeconfig context to use')
    .action(async (target: string, o: LogsFlags) => {
      try {
        const { type, name } = parseTarget(target);
        const client = new HttpClient(await clientConfig(o));
        try {
          const served = await resolveType(client, type);
          const namespace = served.ref.namespaced ? (o.namespace ?? client.defaultNamespace) : undefined;
          const obj = await getOrExplain(client, served.ref, name, namespace);
          const concrete = served.categories.includes('claim') ? await boundResource(client, obj) : { ref: served.ref, name, namespace };
          const stop = new AbortController();
          process.once('SIGINT', () => stop.abort());
          process.once('SIGTERM', () => stop.abort());
          await client.stream(
            logPath(concrete.ref, concrete.name, concrete.namespace, o),
            (chunk) => {
              process.stdout.write(chunk);
            },
            stop.signal,
          );
        } finally {
          client.close();
        }
      } catch (err) {
        console.error(`conductor logs: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      }
    });
}
