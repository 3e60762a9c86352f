/**
 * `conductor migrate --from DATA_DIR --to-etcd URL,… [--force]`: copies every object of a
 * SQLite data dir into etcd — the step from one machine to several servers on one etcd.
 * Stored bytes are copied as they are (Secrets stay encrypted under the data dir's keys, which
 * every server is then given); the counts per resource are compared at the end.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { copyStore, CopyRefusedError, openEtcdStore, openSqliteStore, type Store } from '../store/index.js';
import { addEtcdOptions, etcdBackend, etcdServerList, type EtcdFlags } from './etcd-flags.js';

interface MigrateFlags extends EtcdFlags {
  from: string;
  force: boolean;
}

export function migrateCommand(): Command {
  const command = new Command('migrate')
    .description("Copy every object of a SQLite data dir into etcd (stop the server first); the data dir's keys and certificates stay where they are")
    .requiredOption('--from <dir>', 'the data dir of a `conductor server` on SQLite (holds state.db)')
    .option('--force', 'the target prefix in etcd already holds keys: delete them before copying', false);
  addEtcdOptions(command, 'the etcd cluster to copy into (client URLs, comma-separated)');
  // The target flag of this command is --to-etcd; --etcd-servers is accepted as its other name.
  command.option('--to-etcd <urls>', 'the etcd cluster to copy into (same as --etcd-servers)');
  command.action(async (o: MigrateFlags & { toEtcd?: string }) => {
    let backend;
    try {
      if (o.toEtcd !== undefined) o.etcdServers = etcdServerList(o.toEtcd);
      backend = etcdBackend(o);
      if (!backend) throw new Error('--to-etcd is required: the etcd client URLs to copy into (http://127.0.0.1:2379,…)');
    } catch (err) {
      console.error(`conductor migrate: ${(err as Error).message}`);
      process.exit(2);
    }
    const dbPath = join(resolve(o.from), 'state.db');
    if (!existsSync(dbPath)) {
      console.error(`conductor migrate: ${dbPath} does not exist: --from must be the data dir of a conductor server on SQLite`);
      process.exit(2);
    }
    let source: Store | undefined;
    let target: Store | undefined;
    try {
      source = openSqliteStore({ path: dbPath, compactionIntervalMs: 0 });
      target = await openEtcdStore({ ...backend, compactionIntervalMs: 0 });
      const where = `${backend.endpoints.join(',')} under ${JSON.stringify(backend.keyPrefix ?? '')}`;
      process.stdout.write(`copying ${dbPath} into etcd at ${where}\n`);
      let lastPrinted = -1;
      const result = await copyStore(source, target, {
        replace: o.force,
        onProgress: ({ copied, total }) => {
          if (copied === total || copied - lastPrinted >= 1000) {
            lastPrinted = copied;
            process.stdout.write(`copied ${copied}/${total} objects\n`);
          }
        },
      });
      for (const c of result.counts) {
        process.stdout.write(`${c.source === c.target ? 'ok      ' : 'MISMATCH'} ${c.prefix} source ${c.source} etcd ${c.target}\n`);
      }
      if (!result.verified) {
        console.error('conductor migrate: the counts differ (above): something else wrote under the prefix meanwhile; run again with --force');
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`migrated ${result.copied} objects (SQLite revision ${result.revision}); the counts match\n`);
    } catch (err) {
      const msg = err instanceof CopyRefusedError ? `${err.message}` : `cannot migrate: ${(err as Error).message}`;
      console.error(`conductor migrate: ${msg}`);
      process.exitCode = 1;
    } finally {
      await target?.close();
      await source?.close();
    }
  });
  return command;
}
