/**
 * Whether the object in the target still has what the manifest sets — and only that: fields
 * the manifest leaves out (the target's defaults, status, fields of other managers) are never
 * drift. Objects compare key by key over the manifest's keys; a list whose items all are
 * objects with a string `name` (containers, ports, env) compares item by item by name, so
 * items others add and fields defaulted inside an item are not drift; any other list must
 * have the manifest's length and match item by item. Of `metadata`, only labels and
 * annotations are compared (name and namespace say which object it is; the rest is the
 * server's). Numbers and strings compare as the same value when their text is equal (a port
 * written as "8080" and served as 8080).
 */

/** A Difference is one field the target does not have as the manifest sets it. */
export interface Difference {
  /** Where, as a JSONPath-like path: `.data.color`, `.spec.containers[name=app].image`. */
  path: string;
  /** What the manifest sets, and what the target has (undefined when it lacks the field). */
  want: unknown;
  got: unknown;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function sameScalar(want: unknown, got: unknown): boolean {
  if (want === got) return true;
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number';
  return scalar(want) && scalar(got) && String(want) === String(got);
}

function keyedByName(list: unknown[]): list is (Obj & { name: string })[] {
  return list.length > 0 && list.every((i) => isObj(i) && typeof i.name === 'string');
}

function compare(want: unknown, got: unknown, path: string, out: Difference[]): void {
  if (isObj(want)) {
    if (!isObj(got)) {
      out.push({ path: path || '.', want, got });
      return;
    }
    for (const [k, w] of Object.entries(want)) {
      const field = /^[A-Za-z0-9_-]+$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
      if (!(k in got)) out.push({ path: field, want: w, got: undefined });
      else compare(w, got[k], field, out);
    }
    return;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) {
      out.push({ path, want, got });
      return;
    }
    if (keyedByName(want)) {
      for (const item of want) {
        const at = `${path}[name=${item.name}]`;
        const match: unknown = (got as unknown[]).find((g) => isObj(g) && g.name === item.name);
        if (match === undefined) out.push({ path: at, want: item, got: undefined });
        else compare(item, match, at, out);
      }
      return;
    }
    if (want.length !== got.length) {
      out.push({ path, want, got });
      return;
    }
    want.forEach((w, i) => compare(w, got[i], `${path}[${i}]`, out));
    return;
  }
  if (!sameScalar(want, got)) out.push({ path, want, got });
}

/**
 * manifestDifferences lists the fields `manifest` sets that `live` lacks or has otherwise;
 * empty when the target object has everything the manifest sets.
 */
export function manifestDifferences(manifest: Obj, live: Obj): Difference[] {
  const out: Difference[] = [];
  for (const [k, w] of Object.entries(manifest)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'status') continue;
    if (k === 'metadata') {
      const wantMeta = isObj(w) ? w : {};
      const gotMeta = isObj(live.metadata) ? live.metadata : {};
      for (const m of ['labels', 'annotations']) {
        if (wantMeta[m] !== undefined) compare(wantMeta[m], gotMeta[m] ?? {}, `.metadata.${m}`, out);
      }
      continue;
    }
    if (!(k in live)) out.push({ path: `.${k}`, want: w, got: undefined });
    else compare(w, live[k], `.${k}`, out);
  }
  return out;
}

function show(v: unknown): string {
  if (v === undefined) return 'unset';
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * describeDifferences writes differences for a condition: `.data.color is "blue", manifest
 * sets "red"`; with `quoteValues` false (a Secret) only the paths: `.data.password differs`.
 */
export function describeDifferences(differences: readonly Difference[], options: { max?: number; quoteValues?: boolean } = {}): string {
  const max = options.max ?? 5;
  const quote = options.quoteValues ?? true;
  const shown = differences
    .slice(0, max)
    .map((d) => (quote ? `${d.path} is ${show(d.got)}, manifest sets ${show(d.want)}` : `${d.path} ${d.got === undefined ? 'is unset' : 'differs'}`));
  const more = differences.length > max ? `; and ${differences.length - max} more` : '';
  return shown.join('; ') + more;
}
