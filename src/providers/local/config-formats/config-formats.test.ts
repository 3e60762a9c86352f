import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { connect } from 'node:net';
import { freePort } from '../process/processes.js';
import { accepts } from '../loadbalancer/listeners.js';
import { startDaemon, stopDaemon, awaitDaemonReady } from '../process/daemons.js';
import { resolveRedisBinary } from '../redis/binaries.js';
import { renderRedisConfig } from '../redis/local-servers.js';
import { renderNatsConfig } from '../nats/config.js';
import { haproxyAddress, haproxyComment, natsSecret, natsToken, redisMemory, redisString, redisWord } from './index.js';

describe('haproxy', () => {
  test('haproxyComment leaves nothing a config line could read as a new line, a word break into a directive, or a variable', () => {
    fc.assert(fc.property(fc.string(), (text) => assert.match(haproxyComment(text), /^[A-Za-z0-9 ._/:@?-]*$/)));
  });
  test('haproxyAddress brackets IPv6 and refuses what is not a host', () => {
    assert.equal(haproxyAddress('::1', 80), '[::1]:80');
    assert.equal(haproxyAddress('db.example', 5432), 'db.example:5432');
    assert.throws(() => haproxyAddress('unix@/x.sock#', 1), /not a DNS hostname/);
    assert.throws(() => haproxyAddress(42, 1), /not a DNS hostname/);
    assert.throws(() => haproxyAddress('a', '80'), /not an integer/);
  });
});

describe('nats', () => {
  test('natsToken accepts plain tokens and refuses wildcards, separators and variables', () => {
    assert.equal(natsToken('team-a_orders_1a2b', 'subject'), 'team-a_orders_1a2b');
    for (const bad of ['>', '*', 'a.b', '$SYS', 'a b', '', 'a\n', 'a"b']) assert.throws(() => natsToken(bad, 'subject'), /not a plain token/);
  });
  test('natsSecret refuses $, control characters and empty; quotes are left to JSON', () => {
    assert.equal(natsSecret('abcDEF123_-xyz', 'p'), 'abcDEF123_-xyz');
    assert.equal(natsSecret('pw"with\\quotes', 'p'), 'pw"with\\quotes');
    for (const bad of ['', '$variable1', 'a$b', 'new\nline12', 'tab\there', 'é']) assert.throws(() => natsSecret(bad, 'p'));
  });
});

/** auth sends AUTH <password> over RESP (binary-safe) and returns the first reply line. */
function auth(port: number, password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const arg = Buffer.from(password, 'utf8');
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(Buffer.concat([Buffer.from(`*2\r\n$4\r\nAUTH\r\n$${arg.length}\r\n`), arg, Buffer.from('\r\n')]));
    });
    let got = '';
    socket.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) {
        socket.destroy();
        resolve(got.slice(0, got.indexOf('\r\n')));
      }
    });
    socket.on('error', reject);
  });
}

describe('the generated configs use the writers (issue 10 item 2)', () => {
  const state = { namespace: 'n', name: 'r', port: 6390, password: 'pw', createdAt: '' };
  test('renderRedisConfig refuses a directive smuggled in a setting and quotes the data directory', () => {
    assert.throws(() => renderRedisConfig(state, '/data', { evictionPolicy: 'noeviction\nloadmodule /tmp/evil.so' }), /not one of/);
    assert.throws(() => renderRedisConfig(state, '/data', { maxMemory: '0\nenable-debug-command yes' }), /memory amount/);
    const text = renderRedisConfig(state, '/data/a "b"\nc', {});
    assert.match(text, /^dir "\/data\/a \\"b\\"\\x0ac"$/m);
    assert.equal(text.split('\n').filter((l) => l.startsWith('dir ')).length, 1);
  });
  test('renderNatsConfig refuses a subject or user that would widen permissions', () => {
    const nats = { namespace: 'n', name: 's', port: 4222, adminPassword: 'adminpassword1', accounts: {}, createdAt: '' };
    const account = (subject: string) => ({ acct: { claim: { namespace: 'a', name: 'b' }, username: 'acct', password: 'claimpassword1', subject } });
    assert.doesNotThrow(() => renderNatsConfig({ ...nats, accounts: account('team-a_q_1234') }));
    for (const subject of ['>', '*', 'a.>', '$SYS']) assert.throws(() => renderNatsConfig({ ...nats, accounts: account(subject) }), /not a plain token/);
  });
});

describe('redis.conf', () => {
  test('redisWord and redisMemory refuse anything but their words', () => {
    assert.equal(redisWord('noeviction', ['noeviction']), 'noeviction');
    assert.throws(() => redisWord('noeviction\nloadmodule /tmp/x.so', ['noeviction']));
    assert.equal(redisMemory('256mb'), '256mb');
    for (const bad of ['1 gb', '1gb\nrename-command', '-1', '']) assert.throws(() => redisMemory(bad));
  });
  test('redisString output is one double-quoted printable-ASCII argument', () => {
    // eslint-disable-next-line no-control-regex -- the pattern names the control characters that must not appear unescaped
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => assert.match(redisString(s), /^"(?:[^"\\\x00-\x1f\x7f-\uffff]|\\\\|\\"|\\x[0-9a-f]{2})*"$/)));
  });

  // A real redis-server reads a config whose password holds quotes, backslashes, newlines,
  // NUL and non-ASCII: AUTH with the original string works, so redisString quoted it right.
  describe('a real redis-server reads what redisString writes', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'conductor-redisconf-'));
    });
    after(async () => rm(dir, { recursive: true, force: true }));

    test('passwords survive the round trip', async (t) => {
      const binary = await resolveRedisBinary().catch(() => undefined);
      if (!binary) return t.skip('redis-server is not installed');
      const samples = [
        'pa"ss\\word\nrequirepass x',
        'tab\there # not a comment',
        `é€${String.fromCharCode(0)}\x01end`,
        ...fc.sample(fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), { numRuns: 3, seed: 10 }),
      ];
      for (const [i, password] of samples.entries()) {
        const port = await freePort();
        const conf = join(dir, `redis-${i}.conf`);
        await writeFile(conf, `port ${port}\nbind 127.0.0.1\nsave ""\nappendonly no\ndir ${redisString(dir)}\nrequirepass ${redisString(password)}\n`);
        const pidFile = join(dir, `redis-${i}.pid`);
        const started = await startDaemon({ program: binary.path, args: [conf], cwd: dir, logFile: join(dir, `redis-${i}.log`), pidFile });
        try {
          const ready = await awaitDaemonReady(started.pid, started.exited, () => accepts('127.0.0.1', port), 30_000);
          assert.equal(ready, 'ready', `redis-server did not start for sample ${i}`);
          assert.match(await auth(port, `${password}x`), /^-WRONGPASS/);
          assert.equal(await auth(port, password), '+OK', `sample ${JSON.stringify(password)}`);
        } finally {
          await stopDaemon(started.pid, pidFile);
        }
      }
    });
  });
});
