/**
 * Reads a process's memory and CPU use from Linux's /proc: VmRSS and VmHWM from
 * /proc/<pid>/status, user + system CPU time from /proc/<pid>/stat.
 */
import { readFileSync } from 'node:fs';

/** Memory of a process, in bytes. */
export interface ProcMemory {
  /** Resident set size now (VmRSS). */
  rssBytes: number;
  /** Peak resident set size (VmHWM). */
  hwmBytes: number;
}

/** Clock ticks per second of /proc/<pid>/stat times; 100 on every Linux Node supports. */
const CLOCK_TICKS = 100;

/** parseProcStatus reads VmRSS and VmHWM out of the text of /proc/<pid>/status. */
export function parseProcStatus(text: string): ProcMemory {
  const kb = (field: string): number => {
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
    if (!m) throw new Error(`/proc status has no ${field} line: expected "${field}:   <n> kB"`);
    return Number(m[1]) * 1024;
  };
  return { rssBytes: kb('VmRSS'), hwmBytes: kb('VmHWM') };
}

/** parseProcStatCpuSeconds reads utime + stime (fields 14 and 15) out of /proc/<pid>/stat, in seconds. */
export function parseProcStatCpuSeconds(text: string): number {
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its last ')'.
  const close = text.lastIndexOf(')');
  if (close === -1) throw new Error('/proc stat has no "(comm)" field: expected "<pid> (<comm>) <state> ..."');
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('/proc stat: utime/stime (fields 14, 15) are not numbers');
  return (utime + stime) / CLOCK_TICKS;
}

/** readMemory reads a live process's VmRSS and VmHWM. */
export function readMemory(pid: number): ProcMemory {
  return parseProcStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

/** readCpuSeconds reads a live process's total user + system CPU time. */
export function readCpuSeconds(pid: number): number {
  return parseProcStatCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** mb converts bytes to MiB with one decimal. */
export function mb(bytes: number): number {
  return Math.round((bytes / (1024 * 1024)) * 10) / 10;
}

/** SystemCpu is the machine-wide CPU time from the first line of /proc/stat, in seconds. */
export interface SystemCpu {
  /** Time not idle and not waiting for I/O, summed over cores. */
  busySec: number;
  /** Time idle while some I/O was outstanding. */
  iowaitSec: number;
  /** Time a hypervisor gave to other guests. */
  stealSec: number;
}

/** parseSystemCpu reads the aggregate `cpu` line of /proc/stat. */
export function parseSystemCpu(text: string): SystemCpu {
  const m = /^cpu\s+(.*)$/m.exec(text);
  if (!m) throw new Error('/proc/stat has no aggregate "cpu" line');
  const [user = 0, nice = 0, system = 0, , iowait = 0, irq = 0, softirq = 0, steal = 0] = m[1].trim().split(/\s+/).map(Number);
  return { busySec: (user + nice + system + irq + softirq + steal) / CLOCK_TICKS, iowaitSec: iowait / CLOCK_TICKS, stealSec: steal / CLOCK_TICKS };
}

/** readSystemCpu reads the machine's CPU time so far. */
export function readSystemCpu(): SystemCpu {
  return parseSystemCpu(readFileSync('/proc/stat', 'utf8'));
}
