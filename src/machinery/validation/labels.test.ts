import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { errors, type StatusCause } from '../errors.js';
import { TOTAL_ANNOTATION_SIZE_LIMIT, validateAnnotations, validateLabels } from './labels.js';

interface Case {
  reason: string;
  input: unknown;
  want: Array<Pick<StatusCause, 'reason' | 'field'> & { message: string | RegExp }>;
}

function check(fn: (v: unknown) => StatusCause[], cases: Case[]): void {
  for (const c of cases) {
    test(c.reason, () => {
      const got = fn(c.input);
      assert.equal(got.length, c.want.length, JSON.stringify(got));
      c.want.forEach((w, i) => {
        assert.equal(got[i].reason, w.reason);
        assert.equal(got[i].field, w.field);
        if (typeof w.message === 'string') assert.equal(got[i].message, w.message);
        else assert.match(got[i].message, w.message);
      });
    });
  }
}

describe('validateLabels', () => {
  check(
    (v) => validateLabels(v),
    [
      { reason: 'no labels are valid', input: undefined, want: [] },
      { reason: 'good labels are valid', input: { app: 'web', 'conductor.io/abstract': 'true', empty: '' }, want: [] },
      {
        reason: 'a bad key is reported at metadata.labels with the key as the value',
        input: { 'bad key': 'x' },
        want: [{ reason: 'FieldValueInvalid', field: 'metadata.labels', message: /^Invalid value: "bad key": name part must consist of/ }],
      },
      {
        reason: 'a bad value is reported with the value',
        input: { app: 'a/b' },
        want: [{ reason: 'FieldValueInvalid', field: 'metadata.labels', message: /^Invalid value: "a\/b": a valid label must be/ }],
      },
      {
        reason: 'a too long value gets both the length and the regex message when both fail',
        input: { app: `${'x'.repeat(63)}-` },
        want: [
          { reason: 'FieldValueInvalid', field: 'metadata.labels', message: /must be no more than 63 characters$/ },
          { reason: 'FieldValueInvalid', field: 'metadata.labels', message: /a valid label must be/ },
        ],
      },
      {
        reason: 'a non-string value is a type error on that key',
        input: { replicas: 3 },
        want: [{ reason: 'FieldValueTypeInvalid', field: 'metadata.labels[replicas]', message: 'Invalid value: 3: label values must be strings' }],
      },
      {
        reason: 'a label map that is not an object is a type error',
        input: ['a'],
        want: [{ reason: 'FieldValueTypeInvalid', field: 'metadata.labels', message: /must be an object/ }],
      },
    ],
  );

  test('the field path can be chosen and causes feed errors.invalid', () => {
    const causes = validateLabels({ '-x': 'y' }, 'spec.template.metadata.labels');
    assert.equal(causes[0].field, 'spec.template.metadata.labels');
    const err = errors.invalid('Pod', '', 'p', causes);
    assert.match(err.message, /^Pod "p" is invalid: spec\.template\.metadata\.labels: Invalid value: "-x": name part/);
  });
});

describe('validateAnnotations', () => {
  check(
    (v) => validateAnnotations(v),
    [
      { reason: 'no annotations are valid', input: null, want: [] },
      { reason: 'upper-case keys are allowed (checked in lower case)', input: { 'Example.COM/Note': 'anything at all: / ?' }, want: [] },
      {
        reason: 'a key with a space is invalid',
        input: { 'a b': 'x' },
        want: [{ reason: 'FieldValueInvalid', field: 'metadata.annotations', message: /^Invalid value: "a b": name part must consist/ }],
      },
      {
        reason: 'keys plus values over 256 KiB are too long',
        input: { a: 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT) },
        want: [{ reason: 'FieldValueTooLong', field: 'metadata.annotations', message: 'Too long: may not be more than 262144 bytes' }],
      },
      { reason: 'exactly 256 KiB is allowed', input: { a: 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT - 1) }, want: [] },
      {
        reason: 'the size counts UTF-8 bytes',
        input: { a: 'é'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT / 2) },
        want: [{ reason: 'FieldValueTooLong', field: 'metadata.annotations', message: /262144 bytes/ }],
      },
    ],
  );
});
