import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, isValidPathSegmentName, regexError } from './names.js';

interface Case {
  reason: string;
  input: string;
  /** One entry per message: a substring it contains, or several; [] means valid. */
  want: Array<string | string[]>;
}

function check(fn: (v: string) => string[], cases: Case[]): void {
  for (const c of cases) {
    test(c.reason, () => {
      const got = fn(c.input);
      assert.equal(got.length, c.want.length, `messages for ${JSON.stringify(c.input)}: ${JSON.stringify(got)}`);
      c.want.forEach((w, i) => {
        for (const part of typeof w === 'string' ? [w] : w) {
          assert.ok(got[i].includes(part), `want ${JSON.stringify(part)} in ${JSON.stringify(got[i])}`);
        }
      });
    });
  }
}

const LABEL_REGEX = "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'";

describe('isDNS1123Label', () => {
  check(isDNS1123Label, [
    { reason: 'a simple name is valid', input: 'my-name', want: [] },
    { reason: 'digits first are valid', input: '123-abc', want: [] },
    { reason: '63 characters are allowed', input: 'a'.repeat(63), want: [] },
    { reason: '64 characters are too many', input: 'a'.repeat(64), want: ['must be no more than 63 characters'] },
    { reason: 'upper case is rejected with the regex', input: 'MyName', want: [['a lowercase RFC 1123 label must consist of', LABEL_REGEX]] },
    { reason: 'a trailing dash is rejected', input: 'name-', want: ['must start and end with an alphanumeric character'] },
    { reason: 'the empty string is rejected', input: '', want: ["(e.g. 'my-name',  or '123-abc'"] },
    { reason: 'a dotted name gets a dots message', input: 'a.b', want: ['must not contain dots'] },
  ]);
});

describe('isDNS1123Subdomain', () => {
  check(isDNS1123Subdomain, [
    { reason: 'a dotted name is valid', input: 'example.com', want: [] },
    { reason: 'a single label is valid', input: 'pods', want: [] },
    { reason: '253 characters are allowed', input: `${'a'.repeat(63)}.`.repeat(3) + 'a'.repeat(61), want: [] },
    { reason: '254 characters are too many', input: 'a'.repeat(254), want: ['must be no more than 253 characters'] },
    {
      reason: 'an empty label between dots is rejected with the full Kubernetes message',
      input: 'a..b',
      want: [
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    },
    { reason: 'an underscore is rejected', input: 'my_name', want: ['lowercase RFC 1123 subdomain'] },
  ]);
});

describe('isQualifiedName', () => {
  check(isQualifiedName, [
    { reason: 'a plain name is valid', input: 'app', want: [] },
    { reason: 'mixed case, dots and underscores are valid', input: 'My_name.v2', want: [] },
    { reason: 'a DNS prefix is valid', input: 'conductor.io/abstract', want: [] },
    { reason: 'a leading dash is rejected', input: '-app', want: ['name part must consist of alphanumeric characters'] },
    { reason: 'an empty name part is rejected', input: 'example.com/', want: ['name part must be non-empty', 'name part must consist'] },
    { reason: 'an empty prefix is rejected', input: '/name', want: ['prefix part must be non-empty'] },
    { reason: 'an upper-case prefix is rejected', input: 'Example.com/name', want: ['prefix part a lowercase RFC 1123 subdomain'] },
    { reason: 'a 64-character name part is too long', input: 'a'.repeat(64), want: ['name part must be no more than 63 characters'] },
    {
      reason: 'two slashes are rejected as a whole',
      input: 'a/b/c',
      want: [['a qualified name must consist of', "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]],
    },
    {
      reason: 'the regex message matches Kubernetes word for word',
      input: 'a b',
      want: [
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    },
  ]);
});

describe('isValidLabelValue', () => {
  check(isValidLabelValue, [
    { reason: 'the empty value is valid', input: '', want: [] },
    { reason: 'a plain value is valid', input: 'web-1.2_x', want: [] },
    { reason: 'a 64-character value is too long', input: 'v'.repeat(64), want: ['must be no more than 63 characters'] },
    { reason: 'a slash is rejected', input: 'a/b', want: ['a valid label must be an empty string or consist of'] },
    { reason: 'a leading dot is rejected', input: '.x', want: ["(e.g. 'MyValue',  or 'my_value',  or '12345'"] },
  ]);
});

describe('isValidPathSegmentName', () => {
  check(isValidPathSegmentName, [
    { reason: 'a name is valid', input: 'x', want: [] },
    { reason: 'dot is rejected', input: '.', want: ["may not be '.'"] },
    { reason: 'dot-dot is rejected', input: '..', want: ["may not be '..'"] },
    { reason: 'slash and percent are rejected', input: 'a/%', want: ["may not contain '/'", "may not contain '%'"] },
  ]);
});

describe('regexError', () => {
  test('without examples it names only the regex', () => {
    assert.equal(regexError('must be x', 'x'), "must be x (regex used for validation is 'x')");
  });
});

describe('properties', () => {
  test('every valid DNS-1123 label is also a valid subdomain and qualified name', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/), (s) => {
        assert.deepEqual(isDNS1123Label(s), []);
        assert.deepEqual(isDNS1123Subdomain(s), []);
        assert.deepEqual(isQualifiedName(s), []);
        assert.deepEqual(isValidLabelValue(s), []);
      }),
    );
  });
  test('any string with a character outside the label alphabet is not a label value', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('/', ' ', ':', '@', 'é', '\n'), fc.string(), (a, bad, b) => {
        assert.notDeepEqual(isValidLabelValue(a + bad + b), []);
      }),
    );
  });
});
