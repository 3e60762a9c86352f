/**
 * `conductor trace <type>/<name>`: from a claim to what serves it (class, resource, Provider,
 * external object, connection Secret), or from a concrete resource to its Provider and the
 * claims it serves, with each one's Ready and Synced, last message and age. Read-only. On a
 * terminal (stdout a TTY, NO_COLOR unset) a spinner turns while it fetches and READY/SYNCED
 * are coloured.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { HttpClient } from '../../client/http-client.js';
import { clientConfig } from '../client-config.js';
import { isApiError } from '../../machinery/errors.js';
import { isPlainObject } from '../../machinery/object.js';
import { renderTrace, type TraceOutput } from './render.js';
import { terminalStyle, withSpinner } from './terminal.js';
import { parseTarget, resolveType, TraceArgumentError } from './resolve.js';
import { traceClaim, traceResource, type RefLookup } from '../../trace/trace-tree.js';

interface TraceFlags {
  namespace?: string;
  output: TraceOutput;
  kubeconfig?: string;
  context?: string;
}

export function traceCommand(): Command {
  return new Command('trace')
    .description('Show what serves a claim (class, resource, Provider, external object, Secret), or which claims a concrete resource serves')
    .argument('<type/name>', 'e.g. postgresqlinstance/orders-db, or a concrete resource such as memorydatabase/db-1')
    .option('-n, --namespace <ns>', "the object's namespace (default: the kubeconfig context's, else default)")
    .addOption(
      new Option('-o, --output <format>', 'table, wide (whole messages, namespaces) or json').default('table').argParser((v) => {
        const out = v === 'table' || v === 'wide' || v === 'json' ? v : undefined;
        if (!out) throw new InvalidArgumentError('expected table, wide or json');
        return out;
      }),
    )
    .option('--kubeconfig <path>', 'default: KUBECONFIG, ~/.kube/config, or .conductor/kubeconfig')
    .option('--context <name>', 'the kubeconfig context to use')
    .action(async (target: string, o: TraceFlags) => {
      try {
        const { type, name } = parseTarget(target);
        const client = new HttpClient(await clientConfig(o));
        // Colour and a spinner for a person at a terminal; plain text for pipes, files and NO_COLOR.
        const style = terminalStyle({ isTTY: process.stdout.isTTY, env: process.env });
        const tree = await withSpinner(style.spinner && o.output !== 'json', process.stdout, `tracing ${target}…`, async () => {
          const served = await resolveType(client, type);
          const namespace = served.ref.namespaced ? (o.namespace ?? client.defaultNamespace) : undefined;
          let obj;
          try {
            obj = await client.get(served.ref, name, namespace);
          } catch (err) {
            if (isApiError(err) && err.code === 404) {
              throw new TraceArgumentError(`${served.ref.kind} ${JSON.stringify(name)} not found${namespace ? ` in namespace ${namespace}` : ''}`);
            }
            throw err;
          }
          const lookup: RefLookup = async (apiVersion, kind) => {
            try {
              return await client.discover(apiVersion, kind);
            } catch (err) {
              if (isApiError(err) && err.code === 404) return undefined;
              throw err;
            }
          };
          const claim = served.categories.includes('claim');
          const concrete = !claim && (served.categories.includes('managed') || (isPlainObject(obj.spec) && 'claimRef' in obj.spec));
          if (!claim && !concrete) throw new TraceArgumentError(`${served.ref.kind} is neither a claim kind nor a concrete kind: nothing to trace`);
          return claim ? await traceClaim(client, obj, lookup) : await traceResource(client, obj, lookup);
        }).finally(() => client.close());
        process.stdout.write(renderTrace(tree, o.output, Date.now(), { color: style.color }));
      } catch (err) {
        console.error(`conductor trace: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      }
    });
}
