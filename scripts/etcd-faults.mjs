#!/usr/bin/env node
// The long campaign of test/e2e/etcd-faults.test.ts: the same faults during a write burst (an etcd
// member and the controllers' lease holder SIGKILLed mid-burst, everything restarted, every
// acknowledged write and a resumed watch checked), repeated with a longer burst. Stops at the
// first failing round. Build first (npm run build).
//   node scripts/etcd-faults.mjs [--rounds 5] [--writes 2000] [--claims 20]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    writes: { type: 'string', default: '2000' },
    claims: { type: 'string', default: '20' },
  },
});
const whole = (name, text) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a whole number of at least 1, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
};
const rounds = whole('rounds', values.rounds);
const writes = whole('writes', values.writes);
const claims = whole('claims', values.claims);
const file = 'dist/test/e2e/etcd-faults.test.js';
if (!existsSync(file)) {
  console.error(`${file} is missing: run npm run build first`);
  process.exit(2);
}
for (let round = 1; round <= rounds; round++) {
  console.log(`round ${round}/${rounds}: ${writes} writes, ${claims} claims`);
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', file], {
    stdio: 'inherit',
    env: { ...process.env, CONDUCTOR_ETCD_BURST_WRITES: String(writes), CONDUCTOR_ETCD_BURST_CLAIMS: String(claims) },
  });
  if (r.status !== 0) {
    console.error(`round ${round} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}
console.log(`${rounds} rounds passed`);
