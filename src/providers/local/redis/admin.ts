/**
 * What Conductor does on a Redis server: connect, read the version and eviction policy,
 * create and remove one ACL user per claim limited to its key prefix, and delete keys by
 * prefix. Everything is a plain command sent through node-redis.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { lazyModule } from '../../lazy-module.js';
import { untilAborted } from '../process/cancellable.js';

/** node-redis (with its modules, ~1.6 MB of source) is loaded by the first connection, not at start. */
const redisClient = lazyModule(() => import('redis'));

/** A RedisLogin is where and as whom to connect. */
export interface RedisLogin {
  host: string;
  port: number;
  username?: string;
  password?: string;
  connectTimeoutMs?: number;
}

/** A RedisCommands sends one command and returns the raw reply. */
export interface RedisCommands {
  send(args: string[]): Promise<unknown>;
}

/**
 * withRedis connects (no reconnection: a failure is reported, not retried), runs `fn`, and
 * disconnects whatever happened. When `signal` aborts, the connection is destroyed at once
 * (Redis runs one command at a time and drops a closed client's) and the call rejects with
 * the signal's reason.
 */
export async function withRedis<T>(login: RedisLogin, fn: (redis: RedisCommands) => Promise<T>, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted();
  const { createClient } = await redisClient();
  signal?.throwIfAborted();
  let lastError: Error | undefined;
  const client = createClient({
    socket: { host: login.host, port: login.port, reconnectStrategy: false, connectTimeout: login.connectTimeoutMs ?? 5000 },
    ...(login.username ? { username: login.username } : {}),
    ...(login.password !== undefined ? { password: login.password } : {}),
  });
  client.on('error', (err: Error) => (lastError = err));
  const run = async () => {
    try {
      await client.connect();
    } catch (err) {
      throw new Error(`cannot connect to Redis at ${login.host}:${login.port}: ${(err as Error).message || lastError?.message || String(err)}`);
    }
    try {
      return await fn({ send: (args) => client.sendCommand(args) });
    } finally {
      client.destroy();
    }
  };
  return untilAborted(signal, run, () => {
    if (client.isOpen) client.destroy();
  });
}

/** parseInfo reads the `field:value` lines of an INFO reply. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}

/** A RedisServerInfo is what observing a server learns. */
export interface RedisServerInfo {
  version: string;
  evictionPolicy: string;
}

/** serverInfo reads the version and maxmemory-policy from INFO. */
export async function serverInfo(redis: RedisCommands): Promise<RedisServerInfo> {
  const server = parseInfo(String(await redis.send(['INFO', 'server'])));
  const memory = parseInfo(String(await redis.send(['INFO', 'memory'])));
  const version = server.get('redis_version');
  if (!version) throw new Error('INFO server has no redis_version: is this a Redis server?');
  return { version, evictionPolicy: memory.get('maxmemory_policy') ?? 'noeviction' };
}

/**
 * The command rules of a claim's user on a shared server, after `+@all`. ACL key and channel
 * patterns (`~prefix*`, `&prefix*`) only constrain commands that name keys or channels; the
 * commands below ignore them and would reach other claims' data, so they are taken away:
 * - `@dangerous`, `@admin`: FLUSHALL/FLUSHDB, KEYS, SWAPDB, MONITOR, DEBUG, CONFIG, INFO,
 *   SLOWLOG (other claims' commands with their arguments), CLIENT LIST/KILL/PAUSE, SORT
 *   (BY/GET read any key), MIGRATE, RESTORE, ...;
 * - `@scripting` (FUNCTION FLUSH/DELETE/LOAD REPLACE act on every claim's functions, SCRIPT
 *   FLUSH/KILL on every claim's scripts), with EVAL/EVALSHA(_RO) and SCRIPT LOAD/EXISTS given
 *   back: commands a script runs are checked against the caller's own key patterns;
 * - SCAN and RANDOMKEY (every key name), DBSIZE (every claim's key count), PUBSUB (every
 *   channel name), CLIENT (TRACKING BCAST reports every key written) but for the connection's
 *   own ID/GETNAME/SETNAME/INFO/REPLY (and SETINFO from Redis 7.2), MEMORY but for USAGE of
 *   a key, CLUSTER (GETKEYSINSLOT).
 * Each entry says from which Redis version (major*100+minor) it is known: SETUSER fails on a
 * command the server does not know.
 */
const claimCommandRules: ReadonlyArray<readonly [rule: string, since: number]> = [
  ['+@all', 600],
  ['-@dangerous', 600],
  ['-@admin', 600],
  ['-@scripting', 600],
  ['+eval', 600],
  ['+evalsha', 600],
  ['+eval_ro', 700],
  ['+evalsha_ro', 700],
  ['+script|load', 600],
  ['+script|exists', 600],
  ['-scan', 600],
  ['-randomkey', 600],
  ['-dbsize', 600],
  ['-keys', 600],
  ['-pubsub', 600],
  ['-client', 600],
  ['+client|id', 600],
  ['+client|getname', 600],
  ['+client|setname', 600],
  ['+client|info', 602],
  ['+client|reply', 600],
  ['+client|setinfo', 702],
  ['-memory', 600],
  ['+memory|usage', 600],
  ['-cluster', 600],
];

/** versionNumber turns "7.0.15" into 700 (major*100+minor); 600 when it cannot tell. */
export function versionNumber(version: string | undefined): number {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  return m ? Number(m[1]) * 100 + Number(m[2]) : 600;
}

/**
 * aclRules are the rules of a claim's user: its password only, keys and channels under its
 * prefix (glob characters escaped), and only commands that stay inside them (see
 * claimCommandRules) for a server of `version`.
 */
export function aclRules(password: string, keyPrefix: string, version?: string): string[] {
  const at = versionNumber(version);
  const prefix = globEscape(keyPrefix);
  return ['reset', 'on', `>${password}`, `~${prefix}*`, `&${prefix}*`, ...claimCommandRules.filter(([, since]) => since <= at).map(([rule]) => rule)];
}

/** ensureAclUser creates or resets a claim's user with exactly its rules (one atomic command). */
export async function ensureAclUser(redis: RedisCommands, username: string, password: string, keyPrefix: string): Promise<void> {
  const { version } = await serverInfo(redis);
  await redis.send(['ACL', 'SETUSER', username, ...aclRules(password, keyPrefix, version)]);
  await persistAcl(redis);
}

/**
 * hasOutdatedRules says whether a claim's user may still run a command its rules now take
 * away (a user made by an earlier Conductor): ACL DRYRUN (Redis 7) of SCAN and FUNCTION
 * FLUSH. Servers before 7 cannot tell; false there.
 */
export async function hasOutdatedRules(redis: RedisCommands, username: string, version: string): Promise<boolean> {
  if (versionNumber(version) < 700) return false;
  for (const probe of [
    ['SCAN', '0'],
    ['FUNCTION', 'FLUSH'],
    ['SCRIPT', 'FLUSH'],
  ]) {
    const verdict = await redis.send(['ACL', 'DRYRUN', username, ...probe]).catch(() => 'error');
    if (String(verdict) === 'OK') return true;
  }
  return false;
}

/** aclUsers lists the server's ACL user names. */
export async function aclUsers(redis: RedisCommands): Promise<string[]> {
  const reply = await redis.send(['ACL', 'USERS']);
  return Array.isArray(reply) ? reply.map(String) : [];
}

/** deleteAclUser removes a user (and so ends its connections); a missing user is fine. */
export async function deleteAclUser(redis: RedisCommands, username: string): Promise<void> {
  await redis.send(['ACL', 'DELUSER', username]);
  await persistAcl(redis);
}

/**
 * persistAcl saves the ACL to the server's ACL file when it has one; servers without one
 * keep users in memory only (a restart loses them, and drift detection recreates them).
 */
async function persistAcl(redis: RedisCommands): Promise<void> {
  try {
    await redis.send(['ACL', 'SAVE']);
  } catch {
    // no aclfile configured: nothing to save to
  }
}

/** globEscape escapes Redis glob characters so a prefix matches literally. */
export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** deleteKeysByPrefix removes every key starting with `prefix` (SCAN, then UNLINK in batches). */
export async function deleteKeysByPrefix(redis: RedisCommands, prefix: string): Promise<number> {
  if (prefix === '') throw new Error('refusing to delete keys by an empty prefix: that would be every key');
  let cursor = '0';
  let deleted = 0;
  do {
    const reply = await redis.send(['SCAN', cursor, 'MATCH', `${globEscape(prefix)}*`, 'COUNT', '500']);
    if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1])) throw new Error('SCAN returned an unexpected reply');
    cursor = String(reply[0]);
    const keys = (reply[1] as unknown[]).map(String).filter((k) => k.startsWith(prefix));
    if (keys.length > 0) deleted += Number(await redis.send(['UNLINK', ...keys]));
  } while (cursor !== '0');
  return deleted;
}

/** generatePassword makes a random password that needs no escaping anywhere (URIs, configs). */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * derivePassword computes a claim's password from a secret and the claim's identity: the
 * same inputs give the same password, so a user removed by hand can be recreated with the
 * password the claim already has, without storing it anywhere else.
 */
export function derivePassword(secret: string, identity: string): string {
  const key = createHash('sha256').update(`conductor redis claim password\0${secret}`).digest();
  return createHmac('sha256', key).update(identity).digest('base64url').slice(0, 32);
}

/** configGet reads one setting with CONFIG GET (the reply is a pair list or a map, by protocol). */
export async function configGet(redis: RedisCommands, name: string): Promise<string | undefined> {
  const reply = await redis.send(['CONFIG', 'GET', name]);
  if (Array.isArray(reply)) return reply.length >= 2 ? String(reply[1]) : undefined;
  if (reply instanceof Map) return reply.has(name) ? String(reply.get(name)) : undefined;
  if (typeof reply === 'object' && reply !== null && name in reply) return String((reply as Record<string, unknown>)[name]);
  return undefined;
}
