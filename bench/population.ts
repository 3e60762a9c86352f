/**
 * The benchmark's objects on the server: which ConfigMaps exist (acknowledged creates
 * only), how they are spread over namespaces, and how to create more of them.
 */
import type { BenchClient } from './http-client.js';
import { configMapJson, objectName } from './fixtures.js';
import { runClosedLoop, type LoadResult } from './load.js';

/** The namespace that is filled to exactly the list size and listed. */
export const LIST_NAMESPACE = 'bench-list';
/** The namespace the watch benchmark writes to. */
export const WATCH_NAMESPACE = 'bench-watch';
/** Objects beyond the listed namespace go to bench-fill-0, bench-fill-1, … of this many each. */
export const FILL_NAMESPACE_SIZE = 10_000;

/** A Target is one object to create. */
export interface Target {
  namespace: string;
  name: string;
}

/** collectionPath is the REST path of ConfigMaps in a namespace. */
export function configMapsPath(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/configmaps`;
}

/** A Population tracks the ConfigMaps the benchmark created and plans new ones. */
export class Population {
  /** Names handed out per namespace (created or in flight). */
  private readonly allocated = new Map<string, number>();
  /** Acknowledged objects per namespace. */
  private readonly acknowledged = new Map<string, number>();
  /** REST paths of every acknowledged object, for random reads. */
  readonly paths: string[] = [];
  private readonly namespaces = new Set<string>();

  constructor(
    private readonly client: BenchClient,
    readonly listNamespaceSize: number,
    readonly objectBytes: number,
  ) {}

  /** total is how many acknowledged objects exist. */
  total(): number {
    return this.paths.length;
  }

  /** count is how many acknowledged objects a namespace holds. */
  count(namespace: string): number {
    return this.acknowledged.get(namespace) ?? 0;
  }

  /**
   * plan names the next `n` objects: the listed namespace is filled to its size first,
   * the rest go to fill namespaces of FILL_NAMESPACE_SIZE each.
   */
  plan(n: number): Target[] {
    const out: Target[] = [];
    while (out.length < n) {
      const ns = this.nextNamespace();
      const have = this.allocated.get(ns) ?? 0;
      const cap = ns === LIST_NAMESPACE ? this.listNamespaceSize : FILL_NAMESPACE_SIZE;
      const take = Math.min(cap - have, n - out.length);
      for (let i = 0; i < take; i++) out.push({ namespace: ns, name: objectName(have + i) });
      this.allocated.set(ns, have + take);
    }
    return out;
  }

  /** planIn names the next `n` objects of one namespace. */
  planIn(namespace: string, n: number): Target[] {
    const have = this.allocated.get(namespace) ?? 0;
    this.allocated.set(namespace, have + n);
    return Array.from({ length: n }, (_, i) => ({ namespace, name: objectName(have + i) }));
  }

  private nextNamespace(): string {
    if ((this.allocated.get(LIST_NAMESPACE) ?? 0) < this.listNamespaceSize) return LIST_NAMESPACE;
    for (let k = 0; ; k++) {
      const ns = `bench-fill-${k}`;
      if ((this.allocated.get(ns) ?? 0) < FILL_NAMESPACE_SIZE) return ns;
    }
  }

  /** ensureNamespaces creates the namespaces the targets need (an existing one is fine). */
  async ensureNamespaces(targets: Iterable<Target> | string[]): Promise<void> {
    const wanted = new Set<string>();
    for (const t of targets) wanted.add(typeof t === 'string' ? t : t.namespace);
    for (const ns of wanted) {
      if (this.namespaces.has(ns)) continue;
      const res = await this.client.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
      if (res.status !== 201 && res.status !== 409)
        throw new Error(`cannot create namespace ${ns}: HTTP ${res.status}, expected 201: ${res.body.toString('utf8').slice(0, 300)}`);
      this.namespaces.add(ns);
    }
  }

  /** record notes an acknowledged create. */
  record(t: Target): void {
    this.acknowledged.set(t.namespace, (this.acknowledged.get(t.namespace) ?? 0) + 1);
    this.paths.push(`${configMapsPath(t.namespace)}/${t.name}`);
  }

  /** createOne POSTs one object and records it when the server answers 201. */
  async createOne(t: Target): Promise<string | undefined> {
    const res = await this.client.request('POST', configMapsPath(t.namespace), configMapJson(t.namespace, t.name, this.objectBytes));
    if (res.status !== 201) return `HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`;
    this.record(t);
    return undefined;
  }

  /** create makes the targets with `concurrency` in flight (creating their namespaces first, unmeasured). */
  async create(targets: Target[], concurrency: number, deadlineMs?: number): Promise<LoadResult> {
    await this.ensureNamespaces(targets);
    return runClosedLoop((i) => this.createOne(targets[i]), { total: targets.length, concurrency, deadlineMs });
  }
}
