/**
 * `conductor plan -f FILE…`: for each claim in the files, where it would be bound or what
 * would be provisioned from which class, with the scheduler's explanation and the chosen
 * candidate's cost tier, and the fields that would change on an existing claim of the same
 * name. Nothing is written: each claim goes through a server-side dry run, whose answer
 * carries the scheduler's decision (annotation `conductor.io/plan`). Exit 0 when every claim
 * can be placed, 2 when one cannot, 1 on errors.
 */
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseAllDocuments } from 'yaml';
import { HttpClient } from '../../client/http-client.js';
import type { ResourceRef } from '../../client/types.js';
import { isApiError } from '../../machinery/errors.js';
import { isPlainObject, type KObject } from '../../machinery/object.js';
import { clientConfig, type KubeconfigFlags } from '../client-config.js';
import { fieldDiffs, renderPlans, type PlannedClaim } from './render.js';

const PLAN_ANNOTATION = 'conductor.io/plan';

interface PlanFlags extends KubeconfigFlags {
  filename: string[];
  namespace?: string;
  output: 'table' | 'json';
}

/** The objects in the YAML or JSON files, in order. */
async function objectsIn(files: readonly string[]): Promise<{ file: string; obj: KObject }[]> {
  const out: { file: string; obj: KObject }[] = [];
  for (const file of files) {
    const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
      const value: unknown = doc.toJS();
      if (value === null || value === undefined) continue;
      if (!isPlainObject(value) || typeof value.apiVersion !== 'string' || typeof value.kind !== 'string' || !isPlainObject(value.metadata)) {
        throw new Error(`${file}: every document must be an object with apiVersion, kind and metadata`);
      }
      out.push({ file, obj: value as unknown as KObject });
    }
  }
  return out;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function isClaimKind(client: HttpClient, ref: ResourceRef): Promise<boolean> {
  const resources = await client.resources(ref.group, ref.version);
  return resources.some((r) => r.name === ref.resource && (r.categories ?? []).includes('claim'));
}

/** planOne dry-runs one claim: a create when it is new, a merge of its spec and metadata when it exists. */
async function planOne(client: HttpClient, obj: KObject, namespace: string): Promise<PlannedClaim> {
  const ref = await client.discover(obj.apiVersion, obj.kind);
  const name = obj.metadata.name ?? '';
  const label = `${obj.kind} ${namespace}/${name}`;
  if (!(await isClaimKind(client, ref))) return { claim: label, skipped: `${obj.kind} is not a claim kind` };
  let existing: KObject | undefined;
  try {
    existing = await client.get(ref, name, namespace);
  } catch (err) {
    if (!(isApiError(err) && err.code === 404)) throw err;
  }
  const answer: KObject = existing
    ? await client.patch(
        ref,
        name,
        'merge',
        { metadata: { labels: obj.metadata.labels ?? null, annotations: obj.metadata.annotations ?? null }, spec: obj.spec ?? {} },
        { namespace, dryRun: true, fieldManager: 'conductor-plan' },
      )
    : await client.create(ref, { ...obj, metadata: { ...obj.metadata, namespace } }, { dryRun: true, fieldManager: 'conductor-plan' });
  const bound = existing && isPlainObject(existing.status) && isPlainObject(existing.status.resourceRef) ? existing.status.resourceRef : undefined;
  if (bound) {
    // A bound claim stays with its resource: the changes are what the plan can tell.
    const plan: PlannedClaim['plan'] = {
      decision: 'bound',
      kind: String(bound.kind),
      namespace: String(bound.namespace ?? ''),
      name: String(bound.name),
      message: 'already bound: a claim stays with its resource',
    };
    return { claim: label, existing: true, plan, changes: fieldDiffs(existing!.spec, answer.spec) };
  }
  const raw = answer.metadata.annotations?.[PLAN_ANNOTATION];
  if (raw === undefined)
    return { claim: label, existing: existing !== undefined, error: 'the server did not say where the claim would go (its claim controllers are not running)' };
  return {
    claim: label,
    existing: existing !== undefined,
    plan: JSON.parse(raw) as PlannedClaim['plan'],
    ...(existing ? { changes: fieldDiffs(existing.spec, answer.spec) } : {}),
  };
}

export function planCommand(): Command {
  return new Command('plan')
    .description('Show where each claim in the files would be bound or what would be provisioned, and what would change; nothing is written')
    .requiredOption('-f, --filename <file...>', 'YAML or JSON files of claims (- for standard input)')
    .option('-n, --namespace <ns>', "for claims that name none (default: the kubeconfig context's, else default)")
    .addOption(
      new Option('-o, --output <format>', 'table or json').default('table').argParser((v) => {
        if (v !== 'table' && v !== 'json') throw new InvalidArgumentError('expected table or json');
        return v;
      }),
    )
    .option('--kubeconfig <path>', 'default: KUBECONFIG, ~/.kube/config, or .conductor/kubeconfig')
    .option('--context <name>', 'the kubeconfig context to use')
    .action(async (o: PlanFlags) => {
      let unplaced = false;
      try {
        const docs = await objectsIn(o.filename);
        const client = new HttpClient(await clientConfig(o));
        try {
          const planned: PlannedClaim[] = [];
          for (const { obj } of docs) {
            const ns = obj.metadata.namespace ?? o.namespace ?? client.defaultNamespace;
            try {
              planned.push(await planOne(client, obj, ns));
            } catch (err) {
              planned.push({ claim: `${obj.kind} ${ns}/${obj.metadata.name ?? ''}`, error: err instanceof Error ? err.message : String(err) });
            }
          }
          unplaced = planned.some((p) => p.error !== undefined || p.plan?.decision === 'none');
          process.stdout.write(o.output === 'json' ? `${JSON.stringify(planned, null, 2)}\n` : renderPlans(planned));
        } finally {
          client.close();
        }
      } catch (err) {
        console.error(`conductor plan: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      }
      process.exit(unplaced ? 2 : 0);
    });
}
