import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awaitDaemonReady, findDaemon, spawnDaemon, startDaemon, stopDaemon } from './daemons.js';
import { findExecutable } from './executable-lookup.js';
import { describeResource, resourceIdentity } from './instance-names.js';
import { freePort, isAlive } from './processes.js';
import { keepPort, ProcessSupervisor, readStateFile, startWithRetries, writeStateFile, type StartOutcome, type TrackedServer } from './supervisor.js';

interface SleepState {
  port: number;
}

/** A SleepServers supervises `sleep` processes: enough to exercise the shared mechanics. */
class SleepServers extends ProcessSupervisor<SleepState, TrackedServer> {
  readonly deleted: string[] = [];

  constructor(
    root: string,
    private readonly sleep: string,
  ) {
    super(root, 'sleep directory');
  }

  async readState(dir: string): Promise<SleepState | undefined> {
    const parsed = await readStateFile<SleepState>(join(dir, 'state.json'));
    if (parsed === undefined) return undefined;
    if (typeof parsed.port !== 'number') throw new Error('want a port');
    return parsed as SleepState;
  }

  protected findLive(dir: string): Promise<TrackedServer | undefined> {
    return this.findTrackedDaemon(
      dir,
      { pidFile: join(dir, 'pid'), program: this.sleep, cwd: dir },
      (pid) => ({ pid }),
      () => {},
    );
  }

  protected async stopLive(dir: string, server: TrackedServer): Promise<void> {
    await stopDaemon(server.pid, join(dir, 'pid'));
    this.forget(dir);
  }

  protected override afterDelete(dir: string): void {
    this.deleted.push(dir);
  }

  /** ensureState reads or creates a directory's state. */
  ensureState(dir: string, wantedPort?: number): Promise<SleepState> {
    return this.readOrCreateState(
      dir,
      wantedPort,
      (port) => ({ port }),
      (d, state) => writeStateFile(join(d, 'state.json'), state),
    );
  }

  /** start starts a sleep in `dir` and tracks it. */
  start(dir: string): Promise<number> {
    return this.locked(dir, async (full) => {
      await mkdir(full, { recursive: true });
      await writeStateFile(join(full, 'state.json'), { port: 1 });
      const started = await startDaemon({ program: this.sleep, args: ['30'], cwd: full, logFile: join(full, 'log'), pidFile: join(full, 'pid') });
      this.track(full, { pid: started.pid });
      return started.pid;
    });
  }

  /** startChild starts a sleep and tracks it with its process handle. */
  async startChild(dir: string): Promise<TrackedServer> {
    await mkdir(dir, { recursive: true });
    const started = await startDaemon({ program: this.sleep, args: ['30'], cwd: dir, logFile: join(dir, 'log'), pidFile: join(dir, 'pid') });
    const server = { pid: started.pid, child: started.child };
    this.track(dir, server);
    return server;
  }

  /** trackedIfAlive asks trackedAlive, with the pid check answered by `pidAlive`. */
  trackedIfAlive(dir: string, pidAlive: boolean): Promise<TrackedServer | undefined> {
    return this.trackedAlive(dir, async () => pidAlive);
  }
}

describe('supervisor', () => {
  const dirs: string[] = [];
  after(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conductor-supervisor-'));
    dirs.push(dir);
    return dir;
  };

  test('directories: dirFor names <namespace>_<name> under the root; checkDir refuses anything else', async () => {
    const root = await tempDir();
    const servers = new SleepServers(root, 'sleep');
    assert.equal(servers.dirFor('ns', 'db'), join(root, 'ns_db'));
    for (const [reason, dir] of [
      ['the root itself', root],
      ['a directory outside the root', join(root, '..', 'other')],
      ['a directory two levels down', join(root, 'a', 'b')],
    ] as const) {
      await assert.rejects(servers.stop(dir), /sleep directory .* is not directly under/, reason);
    }
  });

  test('a started server is tracked, found again by a new supervisor, stopped by stopAll, and removed with its directory', async () => {
    const root = await tempDir();
    const sleep = await findExecutable({ name: 'sleep' });
    const first = new SleepServers(root, sleep);
    const dir = first.dirFor('ns', 'one');
    const pid = await first.start(dir);
    assert.deepEqual(first.trackedPids(), [pid]);
    assert.deepEqual(await first.list(), [{ dir, state: { port: 1 } }]);

    const second = new SleepServers(root, sleep);
    assert.deepEqual(second.trackedPids(), []);
    await second.stop(join(root, 'ns_missing')); // nothing there: no error
    await second.remove(dir); // adopts through the pid file, stops, deletes
    assert.equal(await isAlive(pid), false);
    assert.equal(
      await stat(dir).then(
        () => true,
        () => false,
      ),
      false,
    );
    assert.deepEqual(second.deleted, [dir]);
    assert.deepEqual(await second.list(), []);

    const pid2 = await first.start(first.dirFor('ns', 'two'));
    await first.stopAll();
    assert.equal(await isAlive(pid2), false);
    assert.deepEqual(first.trackedPids(), []);
  });

  test('a server no pid file names (the pid file was never written) is adopted by its working directory, not started twice', async () => {
    const root = await tempDir();
    const sleep = await findExecutable({ name: 'sleep' });
    const first = new SleepServers(root, sleep);
    const dir = first.dirFor('ns', 'lost');
    const pid = await first.start(dir);
    await rm(join(dir, 'pid')); // as if Conductor died between the spawn and the write
    const second = new SleepServers(root, sleep);
    await second.stop(dir); // findLive must find it to stop it
    assert.equal(await isAlive(pid), false, 'the unrecorded server was found and stopped');
  });

  test('remove goes through a tombstone: one left by a crash is finished by the next operation on the directory, with what runs in it', async () => {
    const root = await tempDir();
    const sleep = await findExecutable({ name: 'sleep' });
    const servers = new SleepServers(root, sleep);
    const dir = servers.dirFor('ns', 'gone');
    await mkdir(join(dir, 'data', 'base'), { recursive: true });
    await writeFile(join(dir, 'data', 'base', 'table'), 'rows');
    await writeStateFile(join(dir, 'state.json'), { port: 1 });
    // A crash right after the rename: the tombstone holds the data and a process still in it.
    const { rename } = await import('node:fs/promises');
    await rename(dir, join(root, '.removing-ns_gone'));
    const stray = await startDaemon({
      program: sleep,
      args: ['30'],
      cwd: join(root, '.removing-ns_gone'),
      logFile: '/dev/null',
      pidFile: join(tmpdir(), `stray-${process.pid}.pid`),
    });
    assert.equal(await servers.removing(dir), true, 'the removal is seen as under way');
    assert.deepEqual(await servers.list(), [], 'a tombstone is no instance');
    await servers.stop(dir);
    assert.equal(await servers.removing(dir), false, 'the next operation finished it');
    assert.deepEqual(await import('node:fs/promises').then((f) => f.readdir(root)), [], 'nothing is left under the root');
    assert.equal(await isAlive(stray.pid), false, 'what ran in the tombstone was killed');
    await rm(join(tmpdir(), `stray-${process.pid}.pid`), { force: true });
  });

  test('remove deletes the directory and an emptied root; onServerExit tells of a child exit', async () => {
    const parent = await tempDir();
    const root = join(parent, 'instances');
    const sleep = await findExecutable({ name: 'sleep' });
    const servers = new SleepServers(root, sleep);
    const exits: string[] = [];
    servers.onServerExit((d) => exits.push(d));
    const dir = servers.dirFor('ns', 'x');
    const server = await servers.startChild(dir);
    process.kill(server.pid, 'SIGKILL');
    for (let i = 0; i < 300 && exits.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(exits, [dir], 'the exit was told with the directory');
    await servers.remove(dir);
    assert.equal(
      await stat(root).then(
        () => true,
        () => false,
      ),
      false,
      'the emptied root is removed',
    );
  });

  test('a tracked child that exited is not running, even if its pid is alive again (reused by another process)', async () => {
    const root = await tempDir();
    const servers = new SleepServers(root, await findExecutable({ name: 'sleep' }));
    const dir = servers.dirFor('ns', 'child');
    const server = await servers.startChild(dir);
    assert.equal(await servers.trackedIfAlive(dir, true), server, 'a live child is the tracked server');
    process.kill(server.pid, 'SIGKILL');
    // The handle is unref'd (servers outlive nothing of ours): poll until Node has reaped it.
    for (let i = 0; i < 200 && server.child!.signalCode === null; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.child!.signalCode, 'SIGKILL');
    assert.equal(await servers.trackedIfAlive(dir, true), undefined, 'an exited child is not, whatever its pid says now');
    assert.deepEqual(servers.trackedPids(), []);
  });

  test('readOrCreateState: a new state gets the wanted port or a free one; an existing one is kept', async () => {
    const root = await tempDir();
    const servers = new SleepServers(root, 'sleep');
    const [a, b] = [servers.dirFor('ns', 'a'), servers.dirFor('ns', 'b')];
    await Promise.all([mkdir(a), mkdir(b)]);
    assert.deepEqual(await servers.ensureState(a, 5), { port: 5 });
    assert.deepEqual(await servers.ensureState(a, 9), { port: 5 }, 'the stored state wins');
    assert.ok((await servers.ensureState(b)).port > 0);
  });

  test('readStateFile: none is undefined, bad JSON throws; writeStateFile writes mode 0600 JSON', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    assert.equal(await readStateFile(path), undefined);
    await writeStateFile(path, { port: 5 });
    assert.deepEqual(await readStateFile(path), { port: 5 });
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.equal(await readFile(path, 'utf8'), '{\n  "port": 5\n}\n');
    await writeFile(path, '{');
    await assert.rejects(readStateFile(path), SyntaxError);
  });

  test('keepPort: the stored port while free, a pinned one as given, a free one when taken', async () => {
    const written: number[] = [];
    const write = async (s: { port: number }) => void written.push(s.port);
    const free = await freePort();
    assert.deepEqual(await keepPort({ port: free }, undefined, write), { port: free }, 'kept');
    assert.deepEqual(await keepPort({ port: free }, 1, write), { port: 1 }, 'pinned');
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(free, '127.0.0.1', () => r()));
    try {
      const moved = await keepPort({ port: free }, undefined, write);
      assert.notEqual(moved.port, free, 'a taken port is replaced');
      assert.deepEqual(written, [1, moved.port], 'only changed ports are written');
    } finally {
      holder.close();
    }
  });

  test('startWithRetries: tries again on transient or port-taken failures, not on others or a pinned port', async () => {
    const cases: { reason: string; pinned?: number; logs: string[]; want: RegExp | number; attempts: number }[] = [
      { reason: 'success at once', logs: [], want: 7, attempts: 1 },
      { reason: 'a transient failure, then success', logs: ['lock busy'], want: 7, attempts: 2 },
      { reason: 'port taken, then success', logs: ['port in use'], want: 7, attempts: 2 },
      {
        reason: 'port taken on a pinned port fails at once',
        pinned: await freePort(),
        logs: ['port in use'],
        want: /X in d did not start: failed; log: port in use/,
        attempts: 1,
      },
      { reason: 'an unknown failure fails at once', logs: ['bad config'], want: /did not start: failed; log: bad config/, attempts: 1 },
      { reason: 'attempts run out', logs: ['lock busy', 'lock busy', 'lock busy'], want: /log: lock busy/, attempts: 3 },
    ];
    for (const c of cases) {
      let attempts = 0;
      const run = startWithRetries({
        server: 'X',
        dir: 'd',
        state: { port: c.pinned ?? (await freePort()) },
        pinned: c.pinned,
        write: async () => {},
        start: async (): Promise<StartOutcome> => {
          const log = c.logs[attempts++];
          return log === undefined ? { ok: true, pid: 7 } : { ok: false, reason: 'failed', log };
        },
        maxAttempts: 3,
        transient: [/lock busy/],
        portTaken: /in use/,
        backoffMs: 1,
      });
      if (typeof c.want === 'number') assert.equal((await run).pid, c.want, c.reason);
      else await assert.rejects(run, c.want, c.reason);
      assert.equal(attempts, c.attempts, c.reason);
    }
  });

  test('spawnDaemon reports a program that cannot start; awaitDaemonReady tells ready, gone and timeout apart', async () => {
    const dir = await tempDir();
    const failed = await spawnDaemon({ program: join(dir, 'missing'), args: [], cwd: dir, logFile: join(dir, 'log'), pidFile: join(dir, 'pid') });
    assert.ok('error' in failed && /ENOENT/.test(failed.error));
    assert.equal(await findDaemon(join(dir, 'pid'), 'missing', dir), undefined, 'no pid file for a failed spawn');

    const sleep = await findExecutable({ name: 'sleep' });
    const started = await startDaemon({ program: sleep, args: ['30'], cwd: dir, logFile: join(dir, 'log'), pidFile: join(dir, 'pid') });
    try {
      let probes = 0;
      assert.equal(await awaitDaemonReady(started.pid, started.exited, async () => ++probes === 3, 5000, 1), 'ready');
      assert.equal(await awaitDaemonReady(started.pid, started.exited, async () => false, 20, 1), 'timeout');
    } finally {
      await stopDaemon(started.pid, join(dir, 'pid'));
    }
    assert.equal(
      await awaitDaemonReady(
        started.pid,
        () => undefined,
        async () => true,
        1000,
      ),
      'gone',
    );
  });
});

describe('instance names', () => {
  test('resourceIdentity needs a namespace and a name; describeResource names the kind', () => {
    assert.deepEqual(resourceIdentity('K', { metadata: { namespace: 'a', name: 'b' } }), { namespace: 'a', name: 'b' });
    assert.throws(
      () => resourceIdentity('K', { metadata: { name: 'b' } }, 'its files'),
      /^Error: K lacks metadata.namespace or metadata.name: want both to place its files$/,
    );
    assert.equal(describeResource('K', { metadata: { namespace: 'a', name: 'b' } }), 'K a/b');
    assert.equal(describeResource('K', { metadata: {} }), 'K /');
  });
});
