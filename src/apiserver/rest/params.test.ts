import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../../machinery/errors.js';
import { parsePatchParams } from './params.js';

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
