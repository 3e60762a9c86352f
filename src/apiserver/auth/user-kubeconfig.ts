import { join, resolve } from 'node:path';
import { issueClientCertificateAsync } from './client-certificates.js';
import { readIfExists, SECRET_FILE_MODE, writeFileAtomic } from './files.js';
import { KUBECONFIG_CLUSTER, renderKubeconfigYaml } from './kubeconfig.js';
import { loadCaKey, pkiPaths } from './pki.js';
import { AUTHENTICATED_GROUP } from './user-info.js';

/** The longest user or group name a certificate carries (X.509's upper bound for CN and O). */
export const MAX_IDENTITY_NAME_LENGTH = 64;
/** The longest validity `conductor user add` issues (10 years, the CA's own lifetime). */
export const MAX_USER_CERT_DAYS = 3650;

const USER_NAME = /^[A-Za-z0-9]([A-Za-z0-9._@-]*[A-Za-z0-9])?$/;
const GROUP_NAME = /^[A-Za-z0-9]([A-Za-z0-9._@:/-]*[A-Za-z0-9])?$/;
/** Groups the server assigns itself; a certificate claiming them would confuse authorization. */
const RESERVED_GROUPS = [AUTHENTICATED_GROUP, 'system:unauthenticated'];
const RESERVED_GROUP_PREFIX = 'system:serviceaccounts';

/**
 * userNameProblem says what is wrong with a user name for `conductor user add`, or undefined.
 * A name is 1–64 letters, digits, `.`, `_`, `@` and `-`, starting and ending with a letter or
 * digit: it becomes a certificate CN and a file name, so no `/`, `:` or spaces (which also keeps
 * out the `system:` names of service accounts and server components).
 */
export function userNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the user name is empty, expected 1 to 64 characters';
  if (name.length > MAX_IDENTITY_NAME_LENGTH) return `the user name is ${name.length} characters long, expected at most ${MAX_IDENTITY_NAME_LENGTH}`;
  if (!USER_NAME.test(name)) {
    return `the user name ${JSON.stringify(name)} is not valid, expected letters, digits, '.', '_', '@' and '-', starting and ending with a letter or digit`;
  }
  return undefined;
}

/**
 * groupProblem says what is wrong with a group for `conductor user add`, or undefined. A group is
 * 1–64 letters, digits, `.`, `_`, `@`, `:`, `/` and `-`, starting and ending with a letter or
 * digit; the groups the server assigns by itself (system:authenticated, system:unauthenticated,
 * system:serviceaccounts…) cannot be claimed.
 */
export function groupProblem(group: string): string | undefined {
  if (group.length === 0) return 'a group is empty, expected 1 to 64 characters';
  if (group.length > MAX_IDENTITY_NAME_LENGTH)
    return `the group ${JSON.stringify(group)} is ${group.length} characters long, expected at most ${MAX_IDENTITY_NAME_LENGTH}`;
  if (!GROUP_NAME.test(group)) {
    return `the group ${JSON.stringify(group)} is not valid, expected letters, digits, '.', '_', '@', ':', '/' and '-', starting and ending with a letter or digit`;
  }
  if (RESERVED_GROUPS.includes(group) || group.startsWith(RESERVED_GROUP_PREFIX)) {
    return `the group ${JSON.stringify(group)} is assigned by the server itself and cannot be put in a certificate`;
  }
  return undefined;
}

/** UserKubeconfigOptions is what a user's kubeconfig contains. */
export interface UserKubeconfigOptions {
  server: string;
  caPem: string;
  userName: string;
  certPem: string;
  keyPem: string;
}

/**
 * renderUserKubeconfig returns a kubeconfig with one cluster (`conductor`), one user (the user's
 * name, with certificate and key inline) and one context `<user>@conductor`, which is current.
 */
export function renderUserKubeconfig(opts: UserKubeconfigOptions): string {
  const context = `${opts.userName}@${KUBECONFIG_CLUSTER}`;
  return renderKubeconfigYaml({
    server: opts.server,
    caPem: opts.caPem,
    users: [{ name: opts.userName, certPem: opts.certPem, keyPem: opts.keyPem }],
    contexts: [{ name: context, user: opts.userName }],
    currentContext: context,
  });
}

/**
 * serverUrlFromKubeconfig reads the first cluster's `server:` from a kubeconfig `conductor server`
 * wrote (a plain or double-quoted scalar), or undefined when there is none.
 */
export function serverUrlFromKubeconfig(text: string): string | undefined {
  const m = /^\s+server:[ \t]*(\S.*?)[ \t]*$/m.exec(text);
  if (!m) return undefined;
  const raw = m[1];
  if (raw.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(raw);
      return typeof v === 'string' ? v : undefined;
    } catch {
      return undefined;
    }
  }
  if (raw.startsWith("'")) return raw.endsWith("'") && raw.length >= 2 ? raw.slice(1, -1).replaceAll("''", "'") : undefined;
  return raw;
}

/** AddUserOptions are the inputs of `conductor user add`. */
export interface AddUserOptions {
  dataDir: string;
  name: string;
  groups: string[];
  /** Where to write the kubeconfig; `<dataDir>/users/<name>.kubeconfig` by default. */
  out?: string;
  /** The server URL; taken from the admin kubeconfig in dataDir by default. */
  server?: string;
  /** Certificate validity in days (default 365). */
  days?: number;
  /** The clock; tests move it. */
  now?: Date;
}

/** An AddedUser says where the new kubeconfig is and whom it names. */
export interface AddedUser {
  kubeconfigPath: string;
  server: string;
  userName: string;
  groups: string[];
  certPem: string;
}

/** A UserInputError is a bad argument to `conductor user add` (the CLI exits 2 on it). */
export class UserInputError extends Error {
  override readonly name = 'UserInputError';
}

/**
 * addUser issues a client certificate (CN = name, one O per group) signed by the data
 * directory's CA and writes a kubeconfig for it (0600, atomically). It only reads and writes
 * files, so it works while the server runs. Bad names, groups or days throw a UserInputError;
 * a data directory without a CA (or without a server URL) throws an Error saying what is missing.
 */
export async function addUser(opts: AddUserOptions): Promise<AddedUser> {
  const problem = userNameProblem(opts.name) ?? opts.groups.map(groupProblem).find((p) => p !== undefined);
  if (problem) throw new UserInputError(problem);
  const days = opts.days ?? 365;
  if (!Number.isInteger(days) || days < 1 || days > MAX_USER_CERT_DAYS) {
    throw new UserInputError(`--days is ${days}, expected a whole number of days from 1 to ${MAX_USER_CERT_DAYS}`);
  }
  if (opts.server !== undefined && !/^https:\/\/\S+$/.test(opts.server)) {
    throw new UserInputError(`--server ${JSON.stringify(opts.server)} is not valid, expected an https:// URL`);
  }
  const groups = [...new Set(opts.groups)];
  const dataDir = resolve(opts.dataDir);
  const paths = pkiPaths(dataDir);
  const caCertPem = await readIfExists(paths.caCert);
  if (caCertPem === undefined) {
    throw new Error(`cannot add a user: ${paths.caCert} does not exist, expected the data directory of a server that has started once (--data-dir)`);
  }
  let server = opts.server;
  if (server === undefined) {
    const admin = await readIfExists(paths.kubeconfig);
    server = admin === undefined ? undefined : serverUrlFromKubeconfig(admin);
    if (server === undefined) throw new Error(`cannot add a user: no server URL in ${paths.kubeconfig}, expected it there or given with --server`);
  }
  const caKeyPem = await loadCaKey(dataDir);
  const issued = await issueClientCertificateAsync({ caCertPem }, caKeyPem, { commonName: opts.name, organizations: groups, days, now: opts.now });
  const kubeconfigPath = resolve(opts.out ?? join(dataDir, 'users', `${opts.name}.kubeconfig`));
  await writeFileAtomic(
    kubeconfigPath,
    renderUserKubeconfig({ server, caPem: caCertPem, userName: opts.name, certPem: issued.certPem, keyPem: issued.keyPem }),
    SECRET_FILE_MODE,
  );
  return { kubeconfigPath, server, userName: opts.name, groups, certPem: issued.certPem };
}
