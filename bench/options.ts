/**
 * Command-line options of `npm run bench` and the two sizes of run they select: the full
 * run whose figures are compared with the targets, and `--quick`, a smoke run of under a
 * minute whose figures are not judged where its sizes differ from the targets'.
 */
import { parseArgs } from 'node:util';
import type { BenchStore } from './server-process.js';

/** The benchmarks, in the order a run performs them. */
export const BENCHMARKS = ['cold-start', 'scheduler', 'in-process', 'create', 'get', 'list', 'watch', 'rss', 'watch-flood', 'claims', 'kubernetes'] as const;
export type BenchmarkName = (typeof BENCHMARKS)[number];

/** BenchSizes are the counts each benchmark uses. */
export interface BenchSizes {
  /** Concurrent requests (and keep-alive connections) of the request pool. */
  concurrency: number;
  /** Size of each ConfigMap's JSON body, in bytes. */
  objectBytes: number;
  creates: number;
  gets: number;
  /** Objects in the listed namespace, and how many times it is listed. */
  listObjects: number;
  listRuns: number;
  watchers: number;
  /** Creates per second of the watch writer and for how long it writes. */
  watchRatePerSec: number;
  watchSeconds: number;
  /**
   * Objects held when the RSS is read; how long to let the server settle first (the figure
   * "after the fill"); and how long after the last write the figure "at rest" is read (V8
   * returns the young generation and the old generation's slack only once a process has
   * allocated little for a few seconds, ~25 s after a fill of 100,000 objects).
   */
  rssObjects: number;
  rssSettleMs: number;
  rssRestMs: number;
  coldStartRuns: number;
  /** Static MemoryDatabases registered before the claim burst. */
  claimResources: number;
  /** Claims created in the burst (as fast as the API takes them). */
  claims: number;
  /** Claims per second of the steady phase and for how long it runs. */
  claimRatePerSec: number;
  claimRateSeconds: number;
  /** Claims created in the kubernetes benchmark, each satisfied by a KubernetesObject in a target server. */
  kubernetesClaims: number;
  /** Watch attempts by one user in the watch-flood benchmark, how many in flight, and the creates made while they are held. */
  floodAttempts: number;
  floodConcurrency: number;
  floodWrites: number;
}

/** The sizes of the full run: those the targets are defined for. */
export const FULL_SIZES: BenchSizes = {
  concurrency: 16,
  objectBytes: 1024,
  creates: 20_000,
  gets: 50_000,
  listObjects: 10_000,
  listRuns: 5,
  watchers: 100,
  watchRatePerSec: 100,
  watchSeconds: 10,
  rssObjects: 100_000,
  rssSettleMs: 5_000,
  rssRestMs: 45_000,
  coldStartRuns: 5,
  claimResources: 10_000,
  claims: 10_000,
  claimRatePerSec: 100,
  claimRateSeconds: 20,
  kubernetesClaims: 1_000,
  floodAttempts: 10_000,
  floodConcurrency: 200,
  floodWrites: 2_000,
};

/** The sizes of `--quick`. */
export const QUICK_SIZES: BenchSizes = {
  concurrency: 16,
  objectBytes: 1024,
  creates: 2_000,
  gets: 5_000,
  listObjects: 1_000,
  listRuns: 3,
  watchers: 20,
  watchRatePerSec: 50,
  watchSeconds: 3,
  rssObjects: 5_000,
  rssSettleMs: 1_000,
  rssRestMs: 2_000,
  coldStartRuns: 2,
  claimResources: 500,
  claims: 500,
  claimRatePerSec: 50,
  claimRateSeconds: 4,
  kubernetesClaims: 100,
  floodAttempts: 1_000,
  floodConcurrency: 50,
  floodWrites: 200,
};

/** The benchmarks that measure no store (no server, or the server's start): not run with `--store etcd`. */
export const STORELESS_BENCHMARKS: readonly BenchmarkName[] = ['cold-start', 'scheduler', 'in-process'];

/** BenchOptions is everything a run needs to know from its command line. */
export interface BenchOptions {
  quick: boolean;
  /** Where the benchmarked servers keep their objects: SQLite (default) or a local etcd each. */
  store: BenchStore;
  only: BenchmarkName[];
  sizes: BenchSizes;
  /** Where latest.json and the dated copies go. */
  outDir: string;
  /** Start the benchmarked server with `--cpu-prof`, writing profiles under outDir/profiles. */
  cpuProf: boolean;
  /** The server's --log-level. */
  logLevel: string;
  /** Keep the temporary data directories (their paths are printed). */
  keep: boolean;
  /** Extra `node` flags for every benchmarked server (e.g. V8 heap settings to compare). */
  serverNodeArgs: string[];
  help: boolean;
}

export const USAGE = `usage: npm run bench -- [options]
  --quick             small counts, a smoke run of under a minute (figures not judged)
  --only a,b,...      run only these benchmarks: ${BENCHMARKS.join(', ')}
  --store <store>     sqlite (default) or etcd: each benchmarked server on a local etcd of
                      its own (fsync on; ETCD_BIN or /usr/bin/etcd), without ${STORELESS_BENCHMARKS.join(', ')}
  --out <dir>         where to write latest.json and the dated copy (default bench/results)
  --cpu-prof          run the server under --cpu-prof; profiles go to <out>/profiles
                      (summarize one with: node dist/bench/profile-summary.js <file>)
  --log-level <lvl>   the server's log level (default info)
  --keep              keep the temporary data directories
  --server-node-args="<flags>"
                      extra node flags for the benchmarked servers, space-separated
                      (e.g. --server-node-args="--heap-growing-percent=50"; the = is
                      needed as the value starts with a dash); recorded in the JSON
  -h, --help          this text`;

/** parseBenchArgs turns argv (without node and the script) into BenchOptions; it throws on bad input. */
export function parseBenchArgs(argv: string[], defaultOutDir: string): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      store: { type: 'string', default: 'sqlite' },
      out: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'info' },
      keep: { type: 'boolean', default: false },
      'server-node-args': { type: 'string', default: '' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const store = values.store;
  if (store !== 'sqlite' && store !== 'etcd') throw new Error(`--store: expected sqlite or etcd, got ${JSON.stringify(store)}`);
  let only = values.only === undefined ? [...BENCHMARKS] : parseOnly(values.only);
  if (store === 'etcd') {
    const storeless = only.filter((b) => STORELESS_BENCHMARKS.includes(b));
    if (values.only !== undefined && storeless.length > 0) {
      throw new Error(`--store etcd: ${storeless.join(', ')} measure no store; run them without --store`);
    }
    only = only.filter((b) => !STORELESS_BENCHMARKS.includes(b));
  }
  const quick = values.quick === true;
  return {
    quick,
    store,
    only,
    sizes: { ...(quick ? QUICK_SIZES : FULL_SIZES) },
    outDir: values.out ?? defaultOutDir,
    cpuProf: values['cpu-prof'] === true,
    logLevel: values['log-level'] ?? 'info',
    keep: values.keep === true,
    serverNodeArgs: (values['server-node-args'] ?? '').split(/\s+/).filter((a) => a !== ''),
    help: values.help === true,
  };
}

/** parseOnly reads `--only create,get` into benchmark names in run order; it throws on unknown names. */
export function parseOnly(text: string): BenchmarkName[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0) throw new Error(`--only needs at least one of ${BENCHMARKS.join(', ')}`);
  const aliases: Record<string, BenchmarkName> = {
    coldstart: 'cold-start',
    cold: 'cold-start',
    creates: 'create',
    gets: 'get',
    memory: 'rss',
    claim: 'claims',
    binding: 'claims',
    k8s: 'kubernetes',
  };
  const chosen = new Set<BenchmarkName>();
  for (const n of names) {
    const name = (BENCHMARKS as readonly string[]).includes(n) ? (n as BenchmarkName) : aliases[n];
    if (name === undefined) throw new Error(`--only: unknown benchmark ${JSON.stringify(n)}, expected some of ${BENCHMARKS.join(', ')}`);
    chosen.add(name);
  }
  return BENCHMARKS.filter((b) => chosen.has(b));
}
