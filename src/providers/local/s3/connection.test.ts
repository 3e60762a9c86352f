import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBucketConnection } from './connection.js';

const full = { endpoint: 'http://127.0.0.1:4568', bucket: 'b-1', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

describe('formatBucketConnection', () => {
  const cases = [
    { reason: 'complete details pass unchanged', input: full, want: full },
    { reason: 'extra keys are dropped', input: { ...full, port: '4568' }, want: full },
    { reason: 'a missing key is an error naming it', input: { ...full, bucket: '' }, want: /lack bucket/ },
    { reason: 'an endpoint that is no URL is an error', input: { ...full, endpoint: '127.0.0.1:4568' }, want: /want an http or https URL/ },
    { reason: 'a non-http endpoint is an error', input: { ...full, endpoint: 'ftp://host' }, want: /want an http or https URL/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (c.want instanceof RegExp) assert.throws(() => formatBucketConnection(c.input), c.want);
      else assert.deepEqual(formatBucketConnection(c.input), c.want);
    });
  }
});
