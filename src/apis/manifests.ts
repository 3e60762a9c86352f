/**
 * The CRDs as YAML for a real cluster: one multi-document stream (`conductor crds |
 * kubectl apply -f -`) or one file per CRD (`deploy/crds/`, written by `npm run gen:crds`).
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { KObject } from '../machinery/object.js';
import { crdNames } from './crd-metadata.js';

const HEADER = '# Generated from src/apis and src/providers by `npm run gen:crds`; do not edit.\n';

function toYaml(obj: KObject): string {
  return stringify(obj, { aliasDuplicateObjects: false, lineWidth: 0, sortMapEntries: true });
}

/** Every CRD as one multi-document YAML stream. */
export function crdsYaml(crds: KObject[]): string {
  return HEADER + crds.map((c) => `---\n${toYaml(c)}`).join('');
}

/** The file a CRD is written to: `<group>_<plural>.yaml`. */
export function crdFileName(crd: KObject): string {
  const names = crdNames(crd);
  if (!names) throw new Error(`CRD ${crd.metadata.name ?? '(unnamed)'} has no spec.group and spec.names; expected a CustomResourceDefinition`);
  return `${names.group}_${names.plural}.yaml`;
}

/** One file per CRD: name and content. */
export function crdFiles(crds: KObject[]): { name: string; content: string }[] {
  return crds.map((c) => ({ name: crdFileName(c), content: HEADER + toYaml(c) })).sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Writes one file per CRD into `dir` (created if missing) and removes `*.yaml` files there
 * that no longer belong to a CRD, so the directory holds exactly the current CRDs.
 */
export async function writeCrdFiles(dir: string, crds: KObject[]): Promise<{ written: string[]; removed: string[] }> {
  await mkdir(dir, { recursive: true });
  const files = crdFiles(crds);
  const wanted = new Set(files.map((f) => f.name));
  const removed: string[] = [];
  for (const entry of await readdir(dir)) {
    if (entry.endsWith('.yaml') && !wanted.has(entry)) {
      await rm(join(dir, entry));
      removed.push(entry);
    }
  }
  for (const f of files) await writeFile(join(dir, f.name), f.content);
  return { written: files.map((f) => f.name), removed };
}
