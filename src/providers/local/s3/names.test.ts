import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { bucketName, bucketNameProblem } from './names.js';

const k8sName = fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,80}[a-z0-9])?$/);

describe('bucketName', () => {
  const cases = [
    { reason: 'plain names stay readable', namespace: 'team', name: 'photos', want: /^team-photos-[0-9a-f]{16}$/ },
    { reason: 'dots become hyphens', namespace: 'a.b', name: 'c', want: /^a-b-c-[0-9a-f]{16}$/ },
    { reason: 'long names are cut to 63 characters', namespace: 'n'.repeat(63), name: 'm'.repeat(63), want: /^n{46}-[0-9a-f]{16}$/ },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.match(bucketName(c.namespace, c.name), c.want));
  }

  test('claims whose readable parts agree get different buckets', () => {
    assert.notEqual(bucketName('a-b', 'c'), bucketName('a', 'b-c'));
  });

  test('property: every bucket name is valid S3 and deterministic', () => {
    fc.assert(
      fc.property(k8sName, k8sName, (ns, name) => {
        const b = bucketName(ns, name);
        assert.equal(bucketNameProblem(b), undefined, b);
        assert.equal(bucketName(ns, name), b);
      }),
    );
  });

  test('property: any text at all still gives a valid name', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (ns, name) => assert.equal(bucketNameProblem(bucketName(ns, name)), undefined)));
  });
});

describe('bucketNameProblem', () => {
  const cases = [
    { reason: 'a valid name', bucket: 'my-bucket.1', want: undefined },
    { reason: 'too short', bucket: 'ab', want: /3 to 63/ },
    { reason: 'upper case', bucket: 'MyBucket', want: /not valid/ },
    { reason: 'ends with a hyphen', bucket: 'bucket-', want: /not valid/ },
    { reason: 'adjacent dots', bucket: 'a..b', want: /adjacent dots/ },
    { reason: 'IP-shaped', bucket: '192.168.1.1', want: /IP address/ },
    { reason: 'reserved prefix', bucket: 'xn--bucket', want: /reserved/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = bucketNameProblem(c.bucket);
      if (c.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? '', c.want);
    });
  }
});
