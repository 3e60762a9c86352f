/**
 * requestUrl against `new URL(target, 'https://localhost')`: the same path and parameters for
 * API targets (split by hand) and for targets `new URL` normalises (passed to it).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { requestUrl } from './request-url.js';

const targets = [
  '/',
  '/api/v1/namespaces/default/configmaps/cm-1',
  '/api/v1/namespaces/default/configmaps?limit=500&continue=abc%3D%3D&labelSelector=a%3Db,c!=d',
  '/apis/apps/v1/deployments?watch=1&resourceVersion=10&allowWatchBookmarks=true',
  '/api/v1/namespaces/a/pods/p/log?follow=true&sinceSeconds=10',
  "/x/a:b@c/!$&'()*+,;=~-_?q=a+b&q=%20c&&empty=&novalue",
  '/api/v1/namespaces/%E2%9C%93/configmaps',
  '/a?b?c=d',
  '/a%2Fb/c',
  '/a%2e/b',
  '/%2e/b',
  '/a/%2E%2e/b',
  '/a/%2e',
  '/.well-known/openid-configuration',
  '/a/./b',
  '/a/../b',
  '/a/..',
  '/a/.',
  '//host/path',
  '/a b?c d',
  '/a#frag?x=1',
  '/a?x=1#frag',
  '/ä/ö?ü=1',
  '/a\\b',
  '/a<b>?"c"=`d`',
  '/a{b}|c^',
  '/a\tb',
  '/api/v1/configmaps?fieldSelector=metadata.name%3Dx&timeoutSeconds=5',
];

describe('requestUrl', () => {
  for (const target of targets) {
    test(`${JSON.stringify(target)}: the path and parameters new URL gives`, () => {
      const ours = requestUrl(target);
      const theirs = new URL(target, 'https://localhost');
      assert.equal(ours.pathname, theirs.pathname);
      assert.deepEqual([...ours.searchParams], [...theirs.searchParams]);
    });
  }
});
