/**
 * Test support for cancelled calls: is a process gone (not even a zombie left), which
 * processes a group still has, and a TCP server that accepts connections and never answers
 * (a hung server), which reports the connections it holds, and how many connections this
 * process holds open to a port (`testing/hung-server-calls.ts` has the tests every shared-server
kind runs against a hung server). Not used outside tests.
 */
import { readFile, readdir, readlink } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';

/** processGone says whether no process has the pid any more: `kill(pid, 0)` fails with ESRCH. */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** processGroup lists the live (not zombie) processes of the process group `pgid`, from /proc. */
export async function processGroup(pgid: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // After the parenthesised command name: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') members.push(Number(entry));
  }
  return members;
}

/** A HungServer accepts TCP connections on 127.0.0.1 and never sends a byte. */
export interface HungServer {
  port: number;
  /** How many connections it has accepted so far. */
  accepted(): number;
  /** How many of them the other side has not closed yet. */
  open(): number;
  close(): Promise<void>;
}

/** startHungServer starts a HungServer on a free port. */
export async function startHungServer(): Promise<HungServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    // Data is read and ignored: the client waits for an answer that never comes.
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    open: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * connectionsTo counts the TCP sockets this process holds open to `port` on another end
 * (its client connections to a server there), from /proc/net/tcp and /proc/self/fd.
 */
export async function connectionsTo(port: number): Promise<number> {
  const inodes = new Set<string>();
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m) inodes.add(m[1]);
  }
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const remotePort = parseInt(fields[2].split(':')[1] ?? '', 16);
      if (remotePort === port && inodes.has(fields[9])) count++;
    }
  }
  return count;
}
