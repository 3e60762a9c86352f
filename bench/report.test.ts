import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FULL_SIZES, QUICK_SIZES } from './options.js';
import { formatNumber, formatTable, judge, resultFileNames, type Metric } from './report.js';
import { meets } from './targets.js';

describe('judge', () => {
  const cases: { reason: string; metric: Metric; quick?: boolean; want: string | null }[] = [
    { reason: 'a rate above its floor passes', metric: { id: 'create.rate', label: 'c', value: 3500, unit: '/s' }, want: 'PASS' },
    { reason: 'a rate below its floor fails', metric: { id: 'get.rate', label: 'g', value: 7999, unit: '/s' }, want: 'FAIL' },
    { reason: 'a time at its ceiling passes', metric: { id: 'list.median', label: 'l', value: 150, unit: 'ms' }, want: 'PASS' },
    { reason: 'a time above its ceiling fails', metric: { id: 'watch.p99', label: 'w', value: 8.1, unit: 'ms' }, want: 'FAIL' },
    { reason: 'a missing value fails', metric: { id: 'rss.rss', label: 'r', value: null, unit: 'MB' }, want: 'FAIL' },
    { reason: 'quick sizes are not judged', metric: { id: 'create.rate', label: 'c', value: 10, unit: '/s' }, quick: true, want: 'n/a' },
    { reason: 'a metric without a goal has no verdict', metric: { id: 'watch.p50', label: 'w', value: 1, unit: 'ms' }, want: null },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const [got] = judge([c.metric], c.quick ? QUICK_SIZES : FULL_SIZES);
      assert.equal(got.verdict, c.want);
    });
  }
  test('the target text carries the bound and unit', () => {
    assert.equal(judge([{ id: 'create.rate', label: 'c', value: 1, unit: '/s' }], FULL_SIZES)[0].target, '≥ 3,000/s');
    assert.equal(judge([{ id: 'rss.rss', label: 'r', value: 1, unit: 'MB' }], FULL_SIZES)[0].target, '≤ 400 MB');
  });
});

describe('meets', () => {
  test('>= and <= include the bound', () => {
    assert.equal(meets({ op: '>=', value: 5 }, 5), true);
    assert.equal(meets({ op: '<=', value: 5 }, 5), true);
    assert.equal(meets({ op: '<=', value: 5 }, 5.01), false);
  });
});

describe('formatting', () => {
  const cases = [
    { reason: 'thousands get separators and no decimals', input: 12345.678, want: '12,346' },
    { reason: 'tens keep one decimal', input: 12.345, want: '12.3' },
    { reason: 'units keep two decimals', input: 1.2345, want: '1.23' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(formatNumber(c.input), c.want));

  test('the table aligns its columns', () => {
    const t = formatTable(
      judge(
        [
          { id: 'create.rate', label: 'creates/s', value: 3210, unit: '/s' },
          { id: 'x', label: 'longer label here', value: 2, unit: 'ms' },
        ],
        FULL_SIZES,
      ),
    );
    const lines = t.split('\n');
    assert.equal(lines.length, 4);
    assert.match(lines[2], /^creates\/s\s+3,210\/s\s+≥ 3,000\/s\s+1,800\/s\s+PASS$/);
    // The result column is right-aligned: the header and the value end in the same column.
    assert.equal(lines[0].indexOf('result') + 'result'.length, lines[2].indexOf('3,210/s') + '3,210/s'.length);
  });

  test('result files are latest.json and a dated copy, with a -quick suffix for quick runs', () => {
    const d = new Date('2025-03-04T05:06:07.890Z');
    assert.deepEqual(resultFileNames(d, false), { latest: 'latest.json', dated: 'bench-2025-03-04T05-06-07Z.json' });
    assert.deepEqual(resultFileNames(d, true), { latest: 'latest-quick.json', dated: 'bench-2025-03-04T05-06-07Z-quick.json' });
  });
});
