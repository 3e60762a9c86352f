/**
 * Facts about the machine and software a run was measured on, recorded beside the figures.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** MachineFacts describe where a run happened. */
export interface MachineFacts {
  cpuModel: string;
  cores: number;
  /** Cores this process may use (cgroup/affinity aware when Node knows). */
  availableParallelism: number;
  totalMemoryMB: number;
  nodeVersion: string;
  v8Version: string;
  platform: string;
  kernel: string;
  hostname: string;
  /** Commit of the working tree, when it is a git checkout with commits. */
  gitCommit: string | null;
  /** Whether the working tree had uncommitted changes (null when unknown). */
  gitDirty: boolean | null;
}

/** machineFacts gathers MachineFacts; `repoDir` is where to ask git. */
export function machineFacts(repoDir: string): MachineFacts {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    availableParallelism: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    totalMemoryMB: Math.round(os.totalmem() / (1024 * 1024)),
    nodeVersion: process.version,
    v8Version: process.versions.v8,
    platform: `${process.platform}-${process.arch}`,
    kernel: os.release(),
    hostname: os.hostname(),
    gitCommit: git(repoDir, ['rev-parse', 'HEAD']),
    gitDirty: gitDirty(repoDir),
  };
}

function git(cwd: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5_000 }).trim() || null;
  } catch {
    return null;
  }
}

function gitDirty(cwd: string): boolean | null {
  const out = git(cwd, ['status', '--porcelain', '--untracked-files=no']);
  if (out === null) return git(cwd, ['rev-parse', '--git-dir']) === null ? null : false;
  return out.length > 0;
}
