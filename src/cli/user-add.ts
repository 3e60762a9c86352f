/**
 * `conductor user add NAME --group G...`: issues a client certificate signed by the server's CA
 * and writes a kubeconfig for it. Only files are read and written, so it works while the server
 * runs (the server trusts every certificate its CA signed). A certificate cannot be revoked
 * before it expires, so groups that make their holder an administrator of the whole server
 * (system:masters, and every other system: group, which belong to server components) are
 * issued only with `--allow-admin`.
 */
import { Command, InvalidArgumentError } from 'commander';
import { addUser, groupProblem, UserInputError } from '../apiserver/auth/index.js';

/** UserAddFlags are the parsed options of `conductor user add`. */
export interface UserAddFlags {
  group: string[];
  dataDir: string;
  out?: string;
  server?: string;
  days: number;
  allowAdmin?: boolean;
}

/** The group whose members bypass authorization altogether. */
export const MASTERS_GROUP = 'system:masters';

/**
 * privilegedGroupReason says why a group needs `--allow-admin`, or undefined when it does not:
 * system:masters bypasses every authorization check; the other `system:` groups name the
 * server's own components (Kubernetes reserves the prefix for them), never people, and any
 * role bound to them would silently apply.
 */
export function privilegedGroupReason(group: string): string | undefined {
  if (groupProblem(group) !== undefined) return undefined; // not a group a certificate may carry at all: addUser says why
  if (group === MASTERS_GROUP) return `the group "${group}" bypasses every authorization check (full control of the server, every Secret included)`;
  if (group.startsWith('system:')) return `the group "${group}" is reserved for the server's own components (system: groups are not for people)`;
  return undefined;
}

function days(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number of days');
  return Number(value);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** runUserAdd does the work of `conductor user add` and returns the process exit code (0, 1 or 2 for bad input). */
export async function runUserAdd(
  name: string,
  o: UserAddFlags,
  out: (s: string) => void = (s) => process.stdout.write(s),
  err: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  const privileged = o.group.map(privilegedGroupReason).find((r) => r !== undefined);
  if (privileged && !o.allowAdmin) {
    err(`conductor user add: ${privileged}; a certificate cannot be revoked before it expires, so pass --allow-admin to issue it on purpose\n`);
    return 2;
  }
  try {
    const added = await addUser({ dataDir: o.dataDir, name, groups: o.group, out: o.out, server: o.server, days: o.days });
    out(`user ${added.userName}${added.groups.length ? ` (groups: ${added.groups.join(', ')})` : ''}: kubeconfig written to ${added.kubeconfigPath}\n`);
    out(`try: kubectl --kubeconfig ${shellQuote(added.kubeconfigPath)} auth whoami\n`);
    return 0;
  } catch (e) {
    err(`conductor user add: ${e instanceof Error ? e.message : String(e)}\n`);
    return e instanceof UserInputError ? 2 : 1;
  }
}

/** userCommand returns the `conductor user` command with its `add` subcommand. */
export function userCommand(): Command {
  const user = new Command('user').description('Manage people who use the API server with client certificates');
  user
    .command('add')
    .description("Issue a client certificate signed by the server's CA (CN NAME, O each group) and write a kubeconfig for it")
    .argument('<name>', 'the user name (letters, digits, ".", "_", "@", "-")')
    .option('--group <group>', 'a group the user is in (repeatable)', collect, [] as string[])
    .option('--data-dir <dir>', 'the server data directory holding pki/ (env CONDUCTOR_DATA_DIR)', process.env.CONDUCTOR_DATA_DIR ?? '.conductor')
    .option('--out <file>', 'where to write the kubeconfig (default <data-dir>/users/<name>.kubeconfig)')
    .option('--server <url>', "the API server URL (default: the one in the data directory's admin kubeconfig)")
    .option('--days <n>', 'how long the certificate is valid, in days (1 to 3650)', days, 365)
    .option('--allow-admin', 'allow system:masters (bypasses all authorization) and the other reserved system: groups', false)
    // Bad arguments (a missing name, --days abc) exit 2 like the validation in runUserAdd.
    .exitOverride((e) => {
      process.exit(e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : 2);
    })
    .action(async (name: string, o: UserAddFlags) => {
      process.exitCode = await runUserAdd(name, o);
    });
  return user;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./@:=+-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}
