import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TraceNode } from '../../trace/trace-tree.js';
import { renderTrace } from './render.js';
import { Spinner, terminalStyle, withSpinner } from './terminal.js';

const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''); // eslint-disable-line no-control-regex

const tree: TraceNode = {
  name: 'PostgreSQLInstance/orders',
  ready: 'True',
  synced: '-',
  status: 'Bound',
  createdAt: '2026-01-01T00:00:00Z',
  children: [{ name: 'MemoryDatabase/db-1', ready: 'False', synced: 'Unknown', status: 'Bound — Creating', createdAt: '2026-01-01T00:00:00Z', children: [] }],
};
const now = Date.parse('2026-01-01T00:00:30Z');

describe('conductor trace on a terminal', () => {
  const cases: { reason: string; isTTY: boolean | undefined; env: Record<string, string>; fancy: boolean }[] = [
    { reason: 'a TTY', isTTY: true, env: { TERM: 'xterm-256color' }, fancy: true },
    { reason: 'a pipe or a file', isTTY: undefined, env: {}, fancy: false },
    { reason: 'a TTY with NO_COLOR set', isTTY: true, env: { NO_COLOR: '1' }, fancy: false },
    { reason: 'a TTY with NO_COLOR set empty (set is set)', isTTY: true, env: { NO_COLOR: '' }, fancy: false },
    { reason: 'a dumb terminal', isTTY: true, env: { TERM: 'dumb' }, fancy: false },
  ];
  for (const c of cases) {
    test(`colour and spinner for ${c.reason}: ${c.fancy}`, () => {
      assert.deepEqual(terminalStyle({ isTTY: c.isTTY, env: c.env }), { color: c.fancy, spinner: c.fancy });
    });
  }

  test('with colour, READY and SYNCED are green (True), red (False) and yellow (Unknown); the text and its alignment are the plain output', () => {
    const plain = renderTrace(tree, 'table', now);
    const colored = renderTrace(tree, 'table', now, { color: true });
    assert.equal(stripAnsi(colored), plain);
    const [header, root, child] = colored.split('\n');
    assert.doesNotMatch(header, /\x1b/); // eslint-disable-line no-control-regex
    assert.match(root, /\x1b\[32mTrue\x1b\[0m/); // eslint-disable-line no-control-regex
    assert.match(child, /\x1b\[31mFalse\x1b\[0m/); // eslint-disable-line no-control-regex
    assert.match(child, /\x1b\[33mUnknown\x1b\[0m/); // eslint-disable-line no-control-regex
    assert.doesNotMatch(root.replace(/\x1b\[32mTrue\x1b\[0m/, ''), /\x1b/, 'a "-" stays uncoloured'); // eslint-disable-line no-control-regex
  });

  test('without colour (the default) nothing but text is printed', () => {
    assert.doesNotMatch(renderTrace(tree, 'table', now), /\x1b/); // eslint-disable-line no-control-regex
    assert.doesNotMatch(renderTrace(tree, 'wide', now, { color: false }), /\x1b/); // eslint-disable-line no-control-regex
  });

  test('the spinner draws a frame at once, advances, and clears its line when stopped', () => {
    const written: string[] = [];
    const spinner = new Spinner({ write: (s) => written.push(s) }, 'tracing x…', 60_000).start();
    spinner.draw();
    spinner.stop();
    spinner.stop();
    assert.deepEqual(written, ['\r\x1b[2K⠋ tracing x…', '\r\x1b[2K⠙ tracing x…', '\r\x1b[2K']);
  });

  test('withSpinner writes nothing when disabled, and clears the line when the work fails', async () => {
    const written: string[] = [];
    const stream = { write: (s: string) => written.push(s) };
    assert.equal(await withSpinner(false, stream, 'x', () => Promise.resolve(7)), 7);
    assert.deepEqual(written, []);
    await assert.rejects(
      withSpinner(true, stream, 'x', () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(written.at(-1), '\r\x1b[2K');
  });
});
