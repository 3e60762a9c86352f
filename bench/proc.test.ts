import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProcStatCpuSeconds, parseProcStatus, parseSystemCpu, readCpuSeconds, readMemory } from './proc.js';

describe('parseProcStatus', () => {
  test('reads VmRSS and VmHWM in bytes', () => {
    const text = 'Name:\tnode\nVmPeak:\t  900000 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t11\n';
    assert.deepEqual(parseProcStatus(text), { rssBytes: 102400 * 1024, hwmBytes: 204800 * 1024 });
  });
  test('says which line is missing', () => {
    assert.throws(() => parseProcStatus('VmHWM:\t 1 kB\n'), /no VmRSS line/);
  });
});

describe('parseProcStatCpuSeconds', () => {
  const cases = [
    { reason: 'a plain command name', input: '1234 (node) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0', want: 3 },
    { reason: 'a command name with spaces and parentheses', input: '1234 (a (b) c) R 1 2 3 4 5 6 7 8 9 10 100 0 0 0', want: 1 },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(parseProcStatCpuSeconds(c.input), c.want));
  test('refuses text without a command field', () => {
    assert.throws(() => parseProcStatCpuSeconds('garbage'), /no "\(comm\)" field/);
  });
});

describe('reading this process', () => {
  test('memory and CPU of a live process are positive', () => {
    const m = readMemory(process.pid);
    assert.ok(m.rssBytes > 0 && m.hwmBytes >= m.rssBytes);
    assert.ok(readCpuSeconds(process.pid) >= 0);
  });
});

describe('parseSystemCpu', () => {
  test('busy time is everything but idle and iowait', () => {
    const text = 'cpu  100 20 30 5000 40 5 5 10 0 0\ncpu0 50 10 15 2500 20 2 3 5 0 0\n';
    assert.deepEqual(parseSystemCpu(text), { busySec: 1.7, iowaitSec: 0.4, stealSec: 0.1 });
  });
  test('refuses text without the aggregate line', () => {
    assert.throws(() => parseSystemCpu('cpu0 1 2 3\n'), /no aggregate "cpu" line/);
  });
});
