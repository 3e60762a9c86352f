/**
 * `/livez`, `/readyz` and `/healthz` as kube-apiserver answers them: each endpoint runs its
 * named checks; `?verbose` lists every check (`[+]ping ok`, `[-]etcd failed: …`) and ends with
 * `readyz check passed` (or `failed`); `/readyz/<check>` runs that one check; `?exclude=<check>`
 * (repeatable) skips checks. Without `verbose` a healthy endpoint answers `ok` and a failing one
 * lists its failures.
 */

/** A HealthCheck resolves to undefined when fine, else why not. */
export type HealthCheck = () => Promise<string | undefined> | string | undefined;

/** Named checks in the order they are listed. */
export type HealthChecks = ReadonlyArray<readonly [name: string, check: HealthCheck]>;

export interface HealthAnswer {
  code: number;
  body: string;
}

/**
 * healthAnswer runs the checks `path` asks for (`/<endpoint>` every check, `/<endpoint>/<check>`
 * one) and words the answer: 200 when every check passed, 503 otherwise, 404 for an unknown
 * check.
 */
export async function healthAnswer(endpoint: string, path: string, query: URLSearchParams, checks: HealthChecks): Promise<HealthAnswer> {
  const rest = path.slice(endpoint.length + 1).replace(/^\/+|\/+$/g, '');
  if (rest) {
    const found = checks.find(([name]) => name === rest);
    if (!found) return { code: 404, body: `no ${endpoint} check named ${JSON.stringify(rest.slice(0, 100))}; checks: ${checks.map(([n]) => n).join(', ')}` };
    const why = await runCheck(found[1]);
    return why === undefined ? { code: 200, body: 'ok' } : { code: 503, body: `internal server error: ${why}` };
  }
  const excluded = new Set(query.getAll('exclude'));
  const verbose = query.has('verbose');
  const lines: string[] = [];
  let failed = false;
  for (const [name, check] of checks) {
    if (excluded.has(name)) {
      if (verbose) lines.push(`[+]${name} excluded: ok`);
      continue;
    }
    const why = await runCheck(check);
    if (why === undefined) {
      if (verbose) lines.push(`[+]${name} ok`);
    } else {
      failed = true;
      lines.push(`[-]${name} failed: ${why}`);
    }
  }
  if (!verbose && !failed) return { code: 200, body: 'ok' };
  lines.push(`${endpoint} check ${failed ? 'failed' : 'passed'}`);
  return { code: failed ? 503 : 200, body: `${lines.join('\n')}\n` };
}

async function runCheck(check: HealthCheck): Promise<string | undefined> {
  try {
    return await check();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
