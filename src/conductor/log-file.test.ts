import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containedLogFile, streamLog } from './log-file.js';
import { parseLogQuery } from './log-subresource.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-log-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function read(file: string, o: { tailLines?: number } = {}): Promise<string> {
  const chunks: Buffer[] = [];
  await streamLog(file, { ...o, follow: false, signal: new AbortController().signal, write: async (c) => void chunks.push(Buffer.from(c)) });
  return Buffer.concat(chunks).toString();
}

test('tailLines keeps the last lines, with or without a final newline, and more lines than there are is the whole file', async () => {
  const cases: { reason: string; content: string; tail?: number; want: string }[] = [
    { reason: 'the whole file', content: 'a\nb\nc\n', want: 'a\nb\nc\n' },
    { reason: 'last two', content: 'a\nb\nc\n', tail: 2, want: 'b\nc\n' },
    { reason: 'no final newline', content: 'a\nb\nc', tail: 2, want: 'b\nc' },
    { reason: 'more than there are', content: 'a\nb\n', tail: 10, want: 'a\nb\n' },
    { reason: 'zero', content: 'a\nb\n', tail: 0, want: '' },
    { reason: 'empty file', content: '', tail: 3, want: '' },
    { reason: 'longer than one read', content: `${'x'.repeat(100_000)}\nlast\n`, tail: 1, want: 'last\n' },
  ];
  for (const c of cases) {
    const file = join(dir, 'tail.log');
    writeFileSync(file, c.content);
    assert.equal(await read(file, { tailLines: c.tail }), c.want, c.reason);
  }
});

test('a followed file: what is appended is sent, until the signal aborts', async () => {
  const file = join(dir, 'follow.log');
  writeFileSync(file, 'first\n');
  const stop = new AbortController();
  let got = '';
  const following = streamLog(file, { follow: true, pollMs: 10, signal: stop.signal, write: async (c) => void (got += c.toString()) });
  const until = async (want: string) => {
    for (let i = 0; i < 500 && !got.includes(want); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(got.includes(want), `wanted ${JSON.stringify(want)} in ${JSON.stringify(got)}`);
  };
  await until('first\n');
  appendFileSync(file, 'second\n');
  await until('second\n');
  stop.abort();
  await following;
  assert.equal(got, 'first\nsecond\n');
});

test('containedLogFile: only a regular file under the root, symbolic links resolved', async () => {
  const root = join(dir, 'root');
  mkdirSync(join(root, 'inst'), { recursive: true });
  writeFileSync(join(root, 'inst', 'server.log'), 'x');
  writeFileSync(join(dir, 'outside.log'), 'secret');
  symlinkSync(join(dir, 'outside.log'), join(root, 'inst', 'escape.log'));
  const cases: { reason: string; file: string; ok: boolean }[] = [
    { reason: 'a log under the root', file: join(root, 'inst', 'server.log'), ok: true },
    { reason: 'a path climbing out', file: join(root, 'inst', '..', '..', 'outside.log'), ok: false },
    { reason: 'a symbolic link out of the root', file: join(root, 'inst', 'escape.log'), ok: false },
    { reason: 'a directory', file: join(root, 'inst'), ok: false },
    { reason: 'the root itself', file: root, ok: false },
    { reason: 'a relative path', file: 'inst/server.log', ok: false },
    { reason: 'a file that does not exist', file: join(root, 'inst', 'none.log'), ok: false },
    { reason: 'a NUL byte', file: `${join(root, 'inst', 'server.log')}\0`, ok: false },
  ];
  for (const c of cases) assert.equal((await containedLogFile(root, c.file)) !== undefined, c.ok, c.reason);
});

test('parseLogQuery: follow and tailLines, and a 400 naming the parameter otherwise', () => {
  assert.deepEqual(parseLogQuery(new URLSearchParams('')), { follow: false });
  assert.deepEqual(parseLogQuery(new URLSearchParams('follow=true&tailLines=5')), { follow: true, tailLines: 5 });
  for (const [q, name] of [
    ['follow=maybe', 'follow'],
    ['tailLines=-1', 'tailLines'],
    ['tailLines=1e3', 'tailLines'],
    ['tailLines=', 'tailLines'],
  ]) {
    assert.throws(
      () => parseLogQuery(new URLSearchParams(q)),
      (err: { code?: number; message?: string }) => err.code === 400 && new RegExp(name).test(err.message ?? ''),
      q,
    );
  }
});
