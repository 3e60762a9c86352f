import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { frameName, phaseWindow, summarizeProfile, type CpuProfile } from './profile-summary.js';

// root → a (file:///x/dist/src/a.js) → b (file:///x/node_modules/pkg/b.js); root → (idle)
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 4] },
    { id: 2, callFrame: { functionName: 'a', url: 'file:///x/dist/src/a.js', lineNumber: 9 }, children: [3] },
    { id: 3, callFrame: { functionName: 'b', url: 'file:///x/node_modules/pkg/b.js', lineNumber: 0 } },
    { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
  ],
  // 2 ms in a, 6 ms in b, 2 ms idle.
  samples: [2, 3, 3, 3, 4],
  timeDeltas: [2000, 2000, 2000, 2000, 2000],
  startTime: 0,
  endTime: 10_000,
};

describe('summarizeProfile', () => {
  const s = summarizeProfile(profile);
  test('total and idle time come from the sample deltas', () => {
    assert.equal(s.totalMs, 10);
    assert.equal(s.idlePercent, 20);
  });
  test('self time goes to the sampled function only', () => {
    assert.deepEqual(s.selfByFunction.slice(0, 2), [
      { name: 'b (pkg/b.js:1)', ms: 6, percent: 60 },
      { name: 'a (src/a.js:10)', ms: 2, percent: 20 },
    ]);
  });
  test('inclusive time goes to every function on the stack', () => {
    const a = s.inclusiveByFunction.find((r) => r.name.startsWith('a '));
    assert.equal(a?.ms, 8);
  });
  test('self time is also grouped by file', () => {
    assert.equal(s.selfByFile.find((r) => r.name === 'pkg/b.js')?.percent, 60);
  });
});

describe('summarizeProfile with a window', () => {
  test('only samples inside the window count', () => {
    // Samples are at 2, 4, 6, 8, 10 ms: the window 3.5–8.5 ms holds the three samples in b.
    const s = summarizeProfile(profile, 30, { fromUs: 3500, toUs: 8500 });
    assert.equal(s.totalMs, 6);
    assert.deepEqual(
      s.selfByFunction.map((r) => r.name),
      ['b (pkg/b.js:1)'],
    );
  });
  test('phaseWindow reads a benchmark interval from a results document', () => {
    assert.deepEqual(phaseWindow({ results: { create: { cpu: { window: { startUs: 5, endUs: 9 } } } } }, 'create'), { fromUs: 5, toUs: 9 });
    assert.throws(() => phaseWindow({ results: {} }, 'rss'), /no measured interval for "rss"/);
  });
});

describe('frameName', () => {
  const cases = [
    { reason: 'anonymous functions are named so', input: { functionName: '', url: '', lineNumber: 0 }, want: '(anonymous)' },
    { reason: 'lines are shown 1-based', input: { functionName: 'f', url: 'file:///r/dist/bench/run.js', lineNumber: 4 }, want: 'f (bench/run.js:5)' },
    { reason: 'node internals keep their URL', input: { functionName: 'g', url: 'node:internal/x', lineNumber: 0 }, want: 'g (node:internal/x:1)' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(frameName(c.input), c.want));
});
