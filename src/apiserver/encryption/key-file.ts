/**
 * The encryption key file: `<data-dir>/encryption/keys.json`, mode 0600, holding every
 * AES-256 key that may still be needed to read stored values and naming the primary one
 * that new writes use. It is created on first start and replaced atomically on rotation.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** An EncryptionKey is one AES-256 key and the id stored values name it by. */
export interface EncryptionKey {
  id: string;
  /** 32 random bytes. */
  secret: Buffer;
  /** When the key was made (RFC 3339). */
  createdAt: string;
}

/** A KeySet is every usable key and the one new writes are encrypted with. */
export interface KeySet {
  primary: string;
  keys: EncryptionKey[];
}

/** The length of an AES-256 key in bytes. */
export const KEY_BYTES = 32;
const KEY_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
const FILE_VERSION = 1;

/** The path of the key file in a data dir. */
export function keyFilePath(dataDir: string): string {
  return join(dataDir, 'encryption', 'keys.json');
}

/** A fresh key with the next free id (`key-1`, `key-2`, ...). */
export function newKey(existing: readonly EncryptionKey[], now = new Date()): EncryptionKey {
  let n = existing.length + 1;
  const taken = new Set(existing.map((k) => k.id));
  while (taken.has(`key-${n}`)) n++;
  return { id: `key-${n}`, secret: randomBytes(KEY_BYTES), createdAt: now.toISOString() };
}

/** Serialises a KeySet to the file's JSON text. */
export function formatKeySet(ks: KeySet): string {
  const doc = {
    version: FILE_VERSION,
    primary: ks.primary,
    keys: ks.keys.map((k) => ({ id: k.id, algorithm: 'aes-256-gcm', secret: k.secret.toString('base64'), createdAt: k.createdAt })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Parses the key file's text; throws an Error saying what is wrong with it. */
export function parseKeySet(text: string, source = 'the key file'): KeySet {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!isRecord(doc)) throw new Error(`${source} must hold a JSON object with "primary" and "keys"`);
  if (doc.version !== FILE_VERSION) throw new Error(`${source} has version ${JSON.stringify(doc.version)}, expected ${FILE_VERSION}`);
  if (!Array.isArray(doc.keys) || doc.keys.length === 0) throw new Error(`${source}: "keys" must be a non-empty list`);
  const keys: EncryptionKey[] = [];
  const seen = new Set<string>();
  doc.keys.forEach((raw: unknown, i: number) => {
    if (!isRecord(raw)) throw new Error(`${source}: keys[${i}] must be an object`);
    const { id, secret, algorithm, createdAt } = raw;
    if (typeof id !== 'string' || !KEY_ID.test(id)) throw new Error(`${source}: keys[${i}].id must match ${KEY_ID.source} (got ${JSON.stringify(id)})`);
    if (seen.has(id)) throw new Error(`${source}: key id ${JSON.stringify(id)} appears twice`);
    seen.add(id);
    if (algorithm !== 'aes-256-gcm') throw new Error(`${source}: keys[${i}].algorithm must be "aes-256-gcm" (got ${JSON.stringify(algorithm)})`);
    const bytes = typeof secret === 'string' ? Buffer.from(secret, 'base64') : Buffer.alloc(0);
    if (bytes.length !== KEY_BYTES) throw new Error(`${source}: keys[${i}].secret must be ${KEY_BYTES} bytes in base64 (got ${bytes.length} bytes)`);
    keys.push({ id, secret: bytes, createdAt: typeof createdAt === 'string' ? createdAt : '' });
  });
  if (typeof doc.primary !== 'string' || !seen.has(doc.primary)) {
    throw new Error(`${source}: "primary" must name one of the keys (${[...seen].join(', ')}), got ${JSON.stringify(doc.primary)}`);
  }
  return { primary: doc.primary, keys };
}

/** Reads the key file, or returns undefined when it does not exist. */
export async function readKeySet(dataDir: string): Promise<KeySet | undefined> {
  const path = keyFilePath(dataDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the encryption key file ${path}: ${(err as Error).message}`, { cause: err });
  }
  return parseKeySet(text, path);
}

/** Reads the key file, creating it with one new key on first start. */
export async function ensureKeySet(dataDir: string): Promise<KeySet> {
  const existing = await readKeySet(dataDir);
  if (existing) return existing;
  const key = newKey([]);
  const ks: KeySet = { primary: key.id, keys: [key] };
  await writeKeySet(dataDir, ks);
  return ks;
}

/** Writes the key file atomically (temp file, fsync, rename) with mode 0600. */
export async function writeKeySet(dataDir: string, ks: KeySet): Promise<void> {
  const path = keyFilePath(dataDir);
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.chmod(0o600);
    await fh.writeFile(formatKeySet(ks), 'utf8');
    await fh.sync();
    await fh.close();
    await rename(tmp, path);
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw new Error(`cannot write the encryption key file ${path}: ${(err as Error).message}`, { cause: err });
  }
  // Make the rename durable too.
  const dh = await open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}

/** Adds a new key and makes it the primary; the old keys stay for reading. */
export function rotated(ks: KeySet, now = new Date()): { keySet: KeySet; added: EncryptionKey } {
  const added = newKey(ks.keys, now);
  return { keySet: { primary: added.id, keys: [...ks.keys, added] }, added };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
