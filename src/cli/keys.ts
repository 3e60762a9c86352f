/**
 * `conductor keys`: the encryption keys of Secrets at rest — list, rotate (a new primary
 * key; old ones still decrypt), rewrite (re-encrypt stored values under the primary key) and
 * prune (retire keys no stored value uses). rewrite and prune open the store, so they run
 * while the server is stopped; a running server re-encrypts by itself when it starts.
 */
import type { Command } from 'commander';
import { join, resolve } from 'node:path';
import { openSqliteStore } from '../store/index.js';
import {
  EncryptingStore,
  keyFilePath,
  keyUsage,
  PLAINTEXT,
  readKeySet,
  reencryptAll,
  rotated,
  SECRETS_PREFIX,
  writeKeySet,
  type KeySet,
} from '../apiserver/encryption/index.js';

interface DataDirOption {
  dataDir: string;
}

/** A KeysCommandError is a refusal or failure the command reports as one line and exit code 1. */
export class KeysCommandError extends Error {}

async function mustRead(dataDir: string): Promise<KeySet> {
  const ks = await readKeySet(dataDir);
  if (!ks) throw new KeysCommandError(`no encryption key file at ${keyFilePath(dataDir)}: start the server once with --data-dir ${dataDir} to create it`);
  return ks;
}

function openStore(dataDir: string) {
  try {
    return openSqliteStore({ path: join(dataDir, 'state.db'), compactionIntervalMs: 0 });
  } catch (err) {
    throw new KeysCommandError(`${(err as Error).message} — stop the server first; a running server re-encrypts stored secrets itself when it starts`);
  }
}

/** Lists the keys (ids, creation times, which is primary), never their bytes. */
export async function listKeys(dataDir: string): Promise<string> {
  const ks = await mustRead(dataDir);
  const lines = ['ID\tCREATED\tPRIMARY'];
  for (const k of ks.keys) lines.push(`${k.id}\t${k.createdAt}\t${k.id === ks.primary ? 'yes' : ''}`);
  return `${lines.join('\n')}\n`;
}

/** Adds a new primary key. */
export async function rotateKeys(dataDir: string): Promise<string> {
  const ks = await mustRead(dataDir);
  const { keySet, added } = rotated(ks);
  await writeKeySet(dataDir, keySet);
  return (
    `added key ${added.id}; it is now the primary key (previous: ${ks.primary}).\n` +
    `A running server uses it after a restart, and then re-encrypts stored secrets under it; ` +
    `or run "conductor keys rewrite" while the server is stopped.\n`
  );
}

/**
 * Adds a new key that decrypts but does not encrypt yet (`keys rotate --standby`): the first
 * step of a rotation across several servers, so every server can read the new key before any
 * writes with it.
 */
export async function addStandbyKey(dataDir: string): Promise<string> {
  const ks = await mustRead(dataDir);
  const { keySet, added } = rotated(ks);
  await writeKeySet(dataDir, { ...keySet, primary: ks.primary });
  return (
    `added key ${added.id} on standby; ${ks.primary} stays the primary key.\n` +
    `Copy ${keyFilePath(dataDir)} to every server and restart them one at a time, then run "conductor keys use ${added.id}".\n`
  );
}

/** Makes an existing key the primary one (`keys use ID`). */
export async function useKey(dataDir: string, id: string): Promise<string> {
  const ks = await mustRead(dataDir);
  if (!ks.keys.some((k) => k.id === id)) {
    throw new KeysCommandError(`no key ${JSON.stringify(id)} in ${keyFilePath(dataDir)}: the keys are ${ks.keys.map((k) => k.id).join(', ')}`);
  }
  if (ks.primary === id) return `${id} is already the primary key\n`;
  await writeKeySet(dataDir, { ...ks, primary: id });
  return (
    `${id} is now the primary key (previous: ${ks.primary}).\n` +
    `A server uses it after a restart and then re-encrypts stored secrets under it; with several servers, copy ${keyFilePath(dataDir)} to every one first.\n`
  );
}

/** `1,200`: counts as the progress lines print them. */
const count = (n: number) => n.toLocaleString('en-US');

/**
 * Re-encrypts every stored secret under the primary key (server stopped). `progress` is told
 * a line per page of secrets checked (`checked 500/1,200 Secrets, rewrote 500`), so a long
 * rewrite shows that it moves.
 */
export async function rewriteSecrets(dataDir: string, progress: (line: string) => void = () => undefined): Promise<string> {
  const ks = await mustRead(dataDir);
  const store = openStore(dataDir);
  try {
    const enc = new EncryptingStore(store, { keys: ks });
    const r = await reencryptAll(enc, {
      onProgress: ({ scanned, rewritten, total }) => {
        if (scanned === 0) progress(`re-encrypting ${count(total)} stored Secrets under key ${ks.primary}\n`);
        else progress(`checked ${count(scanned)}/${count(total)} Secrets, rewrote ${count(rewritten)}\n`);
      },
    });
    return `re-encrypted ${r.rewritten} of ${r.scanned} stored secrets under key ${ks.primary}\n`;
  } finally {
    await store.close();
  }
}

/**
 * Removes every key but the primary once no stored secret uses it; refuses, naming the keys
 * still in use, otherwise. Older history (which may hold values under retired keys) is
 * compacted away first.
 */
export async function pruneKeys(dataDir: string): Promise<string> {
  const ks = await mustRead(dataDir);
  const retired = ks.keys.filter((k) => k.id !== ks.primary);
  if (retired.length === 0) return `nothing to prune: ${ks.primary} is the only key\n`;
  const store = openStore(dataDir);
  try {
    const usage = await keyUsage(store, [SECRETS_PREFIX]);
    const inUse = retired.filter((k) => (usage.get(k.id) ?? 0) > 0);
    if (inUse.length > 0) {
      const what = inUse.map((k) => `${k.id} (${usage.get(k.id)} values)`).join(', ');
      throw new KeysCommandError(
        `refusing to prune: stored secrets still use ${what}; run "conductor keys rewrite" (server stopped) or restart the server to re-encrypt them first`,
      );
    }
    await store.compact(store.currentRevision());
    await writeKeySet(dataDir, { primary: ks.primary, keys: ks.keys.filter((k) => k.id === ks.primary) });
    const plain = usage.get(PLAINTEXT) ?? 0;
    return `removed ${retired.map((k) => k.id).join(', ')}; ${ks.primary} remains${plain ? ` (${plain} secrets are still stored unencrypted: run "conductor keys rewrite")` : ''}\n`;
  } finally {
    await store.close();
  }
}

/** Adds `conductor keys ...` to the program. */
export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('Manage the keys that encrypt Secrets at rest (<data-dir>/encryption/keys.json)');
  const dataDirOption = ['--data-dir <dir>', "the server's data dir (env CONDUCTOR_DATA_DIR)", process.env.CONDUCTOR_DATA_DIR ?? '.conductor'] as const;
  const run = (fn: (dataDir: string) => Promise<string>) => async (o: DataDirOption) => {
    try {
      process.stdout.write(await fn(resolve(o.dataDir)));
    } catch (err) {
      console.error(`conductor keys: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    }
  };
  keys
    .command('list')
    .description('List the keys (never their bytes) and which one is primary')
    .option(...dataDirOption)
    .action(run(listKeys));
  keys
    .command('rotate')
    .description('Add a new primary key; older keys still decrypt what they encrypted')
    .option(...dataDirOption)
    .option('--standby', 'add the key without making it primary (several servers: every one must know a key before any encrypts with it)')
    .action((o: DataDirOption & { standby?: boolean }) => run(o.standby ? addStandbyKey : rotateKeys)(o));
  keys
    .command('use')
    .description('Make an existing key (from "keys list") the primary key')
    .argument('<id>', 'the key id')
    .option(...dataDirOption)
    .action((id: string, o: DataDirOption) => run((dir) => useKey(dir, id))(o));
  keys
    .command('rewrite')
    .description('Re-encrypt every stored secret under the primary key (run with the server stopped); prints its progress')
    .option(...dataDirOption)
    .action(run((dir) => rewriteSecrets(dir, (line) => process.stdout.write(line))));
  keys
    .command('prune')
    .description('Remove keys no stored secret uses any more (refuses otherwise; run with the server stopped)')
    .option(...dataDirOption)
    .action(run(pruneKeys));
}
