/**
 * HTTP extenders: out-of-process filter and score webhooks configured in a SchedulerProfile.
 *
 * Filter: POST `{claim, candidates}` to filterUrl, answer `{filtered?: [key...], failed?:
 * {key: reason}, error?: string}`: candidates named in `failed`, or missing from `filtered`
 * when it is given, are rejected. Score: POST the same to scoreUrl, answer `{scores: {key:
 * 0..100}, error?}`. Each candidate is sent with its `key` (keys.ts); an answer may name a
 * candidate by key, by `namespace/name` or by bare name (which then means every candidate of
 * that name). Quantities are sent as strings.
 */
import http from 'node:http';
import https from 'node:https';
import { candidateKey } from './keys.js';
import type { Candidate, ClaimInfo, ExtenderConfig, ResourceList } from './types.js';

/** The default time an extender call may take. */
export const DEFAULT_EXTENDER_TIMEOUT_MS = 5_000;
/** The largest answer read from an extender. */
export const MAX_EXTENDER_RESPONSE_BYTES = 4 << 20;

function listToJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, q] of Object.entries(list)) out[k] = q.format();
  return out;
}

/** claimToJson is the claim as extenders receive it. */
export function claimToJson(claim: ClaimInfo): Record<string, unknown> {
  const r = claim.requirements;
  return {
    namespace: claim.namespace,
    name: claim.name,
    uid: claim.uid,
    kind: { group: claim.kind.group, kind: claim.kind.kind },
    requirements: { capacity: listToJson(r.capacity), region: r.region, cost: r.cost, performance: r.performance },
    resourceClass: claim.resourceClass,
    resourceName: claim.resourceName,
    resourceSelector: claim.resourceSelector?.toString(),
    portable: claim.portable,
    namespaceLabels: claim.namespaceLabels,
  };
}

/** candidateToJson is a candidate as extenders receive it, with its `key`. */
export function candidateToJson(c: Candidate): Record<string, unknown> {
  const cap = c.capabilities;
  const common = {
    key: candidateKey(c),
    type: c.type,
    namespace: c.namespace,
    name: c.name,
    capabilities: { capacity: listToJson(cap.capacity), region: cap.region, cost: cap.cost, performance: cap.performance },
    provider: c.provider,
    portable: c.portable,
  };
  if (c.type === 'resource') {
    return {
      ...common,
      kind: c.kind,
      labels: c.labels,
      profile: c.profile,
      phase: c.phase,
      sharing: c.sharing,
      boundCount: c.boundCount,
      allocatable: c.allocatable === undefined ? undefined : listToJson(c.allocatable),
    };
  }
  return { ...common, profile: c.profile, templateKind: c.templateKind, isDefault: c.isDefault, maxInstances: c.maxInstances, instanceCount: c.instanceCount };
}

/** The names an extender may use for a candidate, most specific first. */
function namesOf(c: Candidate): string[] {
  return [candidateKey(c), `${c.namespace}/${c.name}`, c.name];
}

/** answerFor reads a candidate's entry of an answer map under the first of its names present. */
function answerFor(answer: Record<string, unknown>, c: Candidate): unknown {
  for (const n of namesOf(c)) if (Object.prototype.hasOwnProperty.call(answer, n)) return answer[n];
  return undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An HttpExtender calls one extender's webhooks. */
export class HttpExtender {
  readonly name: string;
  readonly weight: number;
  readonly ignorable: boolean;
  private readonly filterUrl?: URL;
  private readonly scoreUrl?: URL;
  private readonly timeoutMs: number;
  private readonly agent: http.Agent;

  /** The constructor checks the URLs; it throws naming the extender and the bad URL. */
  constructor(config: ExtenderConfig) {
    this.name = config.name;
    this.weight = config.weight ?? 1;
    this.ignorable = config.ignorable ?? false;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_EXTENDER_TIMEOUT_MS;
    if (config.filterUrl !== undefined) this.filterUrl = parseUrl(config.name, config.filterUrl);
    if (config.scoreUrl !== undefined) this.scoreUrl = parseUrl(config.name, config.scoreUrl);
    const secure = [this.filterUrl, this.scoreUrl].some((u) => u?.protocol === 'https:');
    this.agent = secure
      ? new https.Agent({
          keepAlive: true,
          ...(config.caPem === undefined ? {} : { ca: config.caPem }),
          rejectUnauthorized: config.insecureSkipTlsVerify !== true,
        })
      : new http.Agent({ keepAlive: true });
  }

  get filters(): boolean {
    return this.filterUrl !== undefined;
  }

  get scores(): boolean {
    return this.scoreUrl !== undefined;
  }

  /** filter asks which candidates to reject; it returns key → reason. It throws when the call or its answer fails. */
  async filter(claim: ClaimInfo, candidates: readonly Candidate[]): Promise<Map<string, string>> {
    if (this.filterUrl === undefined) return new Map();
    const answer = await this.post(this.filterUrl, claim, candidates);
    const failedIn = answer['failed'];
    const filteredIn = answer['filtered'];
    if (failedIn !== undefined && failedIn !== null && !isRecord(failedIn))
      throw new Error(`extender ${this.name} answered a "failed" that is not an object of key → reason`);
    if (filteredIn !== undefined && filteredIn !== null && !Array.isArray(filteredIn))
      throw new Error(`extender ${this.name} answered a "filtered" that is not a list of keys`);
    const passed = Array.isArray(filteredIn) ? new Set(filteredIn.filter((k): k is string => typeof k === 'string')) : undefined;
    const failed = new Map<string, string>();
    for (const c of candidates) {
      const key = candidateKey(c);
      const reason = isRecord(failedIn) ? answerFor(failedIn, c) : undefined;
      if (reason !== undefined) failed.set(key, typeof reason === 'string' && reason !== '' ? reason : 'rejected');
      else if (passed !== undefined && !namesOf(c).some((n) => passed.has(n))) failed.set(key, 'rejected');
    }
    return failed;
  }

  /** score asks for 0–100 per candidate; missing or non-numeric scores are 0. It throws when the call or its answer fails. */
  async score(claim: ClaimInfo, candidates: readonly Candidate[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (this.scoreUrl === undefined) return out;
    const answer = await this.post(this.scoreUrl, claim, candidates);
    const scores = answer['scores'];
    if (!isRecord(scores)) throw new Error(`extender ${this.name} answered without a "scores" object of key → 0..100`);
    for (const c of candidates) {
      const s = answerFor(scores, c);
      out.set(candidateKey(c), typeof s === 'number' && Number.isFinite(s) ? Math.max(0, Math.min(100, s)) : 0);
    }
    return out;
  }

  /** close drops kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private async post(url: URL, claim: ClaimInfo, candidates: readonly Candidate[]): Promise<Record<string, unknown>> {
    const body = JSON.stringify({ claim: claimToJson(claim), candidates: candidates.map(candidateToJson) });
    const text = await postJson(url, body, this.agent, this.timeoutMs);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new Error(`extender ${this.name} answered ${url.href} with something that is not JSON: ${text.slice(0, 100)}`);
    }
    if (!isRecord(answer)) throw new Error(`extender ${this.name} answered with JSON that is not an object`);
    const err = answer['error'];
    if (typeof err === 'string' && err !== '') throw new Error(`extender ${this.name} answered an error: ${err}`);
    return answer;
  }
}

function parseUrl(name: string, text: string): URL {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new Error(`extender ${name}: cannot read URL ${JSON.stringify(text)}: expected http:// or https://`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`extender ${name}: URL ${JSON.stringify(text)} is ${u.protocol}, expected http: or https:`);
  return u;
}

/** postJson sends a JSON body and resolves with the answer's text; non-2xx, oversized answers and timeouts reject. */
function postJson(url: URL, body: string, agent: http.Agent, timeoutMs: number): Promise<string> {
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | undefined, text?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(text!);
    };
    const req = send(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish(new Error(`POST ${url.href} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (e) => finish(new Error(`POST ${url.href} failed: ${e.message}`)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_EXTENDER_RESPONSE_BYTES) {
          req.destroy();
          finish(new Error(`POST ${url.href} answered more than ${MAX_EXTENDER_RESPONSE_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (e) => finish(new Error(`POST ${url.href} failed while reading: ${e.message}`)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) finish(new Error(`POST ${url.href} answered HTTP ${status}, expected 2xx: ${text.slice(0, 200)}`));
        else finish(undefined, text);
      });
    });
    req.end(body);
  });
}
