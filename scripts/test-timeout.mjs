// Preloaded into every test process by scripts/run-tests.mjs (`--import`): gives each test and
// each hook that does not set its own `{ timeout }` a default one, so a hung test fails (and
// the run goes on) instead of hanging the run.
//
// Why not `node --test --test-timeout`: on Node 20 that bounds each test FILE as a whole (the
// file is one subtest of the runner), which cancels a long but healthy file and names no test.
// A timeout set on describe() would likewise bound the whole suite, so suites are left alone:
// only test()/it() and the four hooks get the default.
//
// CONDUCTOR_TEST_TIMEOUT_MS sets the default (120000); 0 turns it off.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
const nodeTest = require('node:test');
const raw = process.env.CONDUCTOR_TEST_TIMEOUT_MS;
const timeoutMs = raw === undefined || raw === '' ? 120_000 : Number(raw);
if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
  throw new Error(`CONDUCTOR_TEST_TIMEOUT_MS must be a number of milliseconds (0 = no timeout), got ${JSON.stringify(raw)}`);
}

/** test(name?, options?, fn?) with `timeout` defaulted in the options. */
function withDefaultTimeout(original) {
  const wrapped = function (...args) {
    const optionsAt = args.findIndex((a) => a !== null && typeof a === 'object');
    if (optionsAt === -1) {
      const fnAt = args.findIndex((a) => typeof a === 'function');
      args.splice(fnAt === -1 ? args.length : fnAt, 0, { timeout: timeoutMs });
    } else if (args[optionsAt].timeout === undefined) {
      args[optionsAt] = { ...args[optionsAt], timeout: timeoutMs };
    }
    return original.apply(this, args);
  };
  for (const variant of ['skip', 'todo', 'only']) {
    if (typeof original[variant] === 'function') wrapped[variant] = withDefaultTimeout(original[variant]);
  }
  return wrapped;
}

/** before/after/beforeEach/afterEach(fn, options?) with `timeout` defaulted. */
function hookWithDefaultTimeout(original) {
  return function (fn, options) {
    return original.call(this, fn, options?.timeout === undefined ? { ...options, timeout: timeoutMs } : options);
  };
}

if (timeoutMs > 0) {
  for (const name of ['test', 'it']) nodeTest[name] = withDefaultTimeout(nodeTest[name]);
  for (const name of ['before', 'after', 'beforeEach', 'afterEach']) nodeTest[name] = hookWithDefaultTimeout(nodeTest[name]);
  // The ESM view of node:test (`import { test } from 'node:test'`) copies these exports.
  syncBuiltinESMExports();
}
