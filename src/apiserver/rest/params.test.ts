import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../../machinery/errors.js';
import { parsePatchParams, watchRequested } from './params.js';

const force = (v: string) => parsePatchParams(new URLSearchParams({ force: v }), 'test').force;

test('boolean query parameters read true and false in any case (the Python client sends force=True)', () => {
  for (const v of ['true', 'True', 'TRUE', '1', '']) assert.equal(force(v), true, v);
  for (const v of ['false', 'False', 'FALSE', '0']) assert.equal(force(v), false, v);
});

test('a boolean query parameter that is neither is refused with 400 naming it', () => {
  assert.throws(
    () => force('yes'),
    (e) => isApiError(e) && e.code === 400 && /query parameter "force": "yes"/.test(e.message),
  );
});

test('watch=true, 1 or True asks for a watch (the Python client sends watch=True); false, 0 or nothing does not', () => {
  for (const v of ['true', 'True', '1']) assert.equal(watchRequested(new URLSearchParams({ watch: v })), true, v);
  for (const v of ['false', '0', '']) assert.equal(watchRequested(new URLSearchParams({ watch: v })), false, v);
  assert.equal(watchRequested(new URLSearchParams()), false);
});
