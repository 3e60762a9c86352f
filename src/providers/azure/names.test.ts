import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AZURE_NAME_PATTERN, azureNameProblem, claimAzureName, defaultAzureName } from './names.js';

describe('Azure container and queue names', () => {
  const cases: { name: string; want: RegExp | undefined }[] = [
    { name: 'abc', want: undefined },
    { name: 'my-container-1', want: undefined },
    { name: 'a'.repeat(63), want: undefined },
    { name: 'ab', want: /has 2 characters: want 3 to 63/ },
    { name: 'a'.repeat(64), want: /has 64 characters/ },
    { name: 'My-Box', want: /only lower-case letters, digits and hyphens/ },
    { name: 'my_box', want: /only lower-case letters/ },
    { name: '-box', want: /begin and end with a letter or digit/ },
    { name: 'box-', want: /begin and end/ },
    { name: 'my--box', want: /two hyphens in a row/ },
    { name: '$root', want: /only lower-case/ },
  ];
  for (const c of cases) {
    test(`"${c.name.length > 20 ? `${c.name.slice(0, 8)}…(${c.name.length})` : c.name}" ${c.want ? 'is refused' : 'is accepted'}`, () => {
      const problem = azureNameProblem('container', c.name);
      if (c.want) assert.match(problem ?? '', c.want);
      else assert.equal(problem, undefined);
      // The CRD's pattern agrees, except for "--", which its CEL rule refuses.
      if (!c.name.includes('--')) assert.equal(new RegExp(AZURE_NAME_PATTERN).test(c.name), c.want === undefined);
    });
  }

  test('a claim name is always valid, apart for claims whose readable parts agree, and stable', () => {
    const names = [
      claimAzureName('shop', 'photos'),
      claimAzureName('shop-photos', ''),
      claimAzureName('Shop', 'PHOTOS'),
      claimAzureName('x'.repeat(63), 'y'.repeat(253)),
      claimAzureName('a', '--b--'),
      claimAzureName('', ''),
    ];
    for (const n of names) assert.equal(azureNameProblem('queue', n), undefined, n);
    assert.match(names[0], /^shop-photos-[0-9a-f]{16}$/);
    assert.equal(new Set(names).size, names.length);
    assert.equal(claimAzureName('shop', 'photos'), names[0]);
  });

  test("a resource's default name: its own when Azure takes it, else derived", () => {
    assert.equal(defaultAzureName('container', 'conductor-system', 'assets'), 'assets');
    assert.match(defaultAzureName('container', 'conductor-system', 'Assets.v2'), /^conductor-system-assets-v2-[0-9a-f]{16}$/);
  });
});
