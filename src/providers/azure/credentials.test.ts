import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { azureCredentialsFrom, CredentialsError, type AzureCredentials } from './credentials.js';

const KEY = Buffer.alloc(64, 1).toString('base64');
const GUID = '0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0';
const SECRET = 'a-client-secret-value';

describe('azureCredentialsFrom', () => {
  const cases: { reason: string; data: Record<string, string> | undefined; want: AzureCredentials | RegExp }[] = [
    {
      reason: 'account name and key: Azure endpoints by default',
      data: { accountName: 'shopdata', accountKey: KEY },
      want: {
        storage: {
          accountName: 'shopdata',
          accountKey: KEY,
          blobEndpoint: 'https://shopdata.blob.core.windows.net',
          queueEndpoint: 'https://shopdata.queue.core.windows.net',
        },
      },
    },
    {
      reason: 'endpoint overrides (an emulator on the loopback may be plain http), trailing slash dropped',
      data: { accountName: 'dev1', accountKey: KEY, blobEndpoint: 'http://127.0.0.1:10000/dev1/', queueEndpoint: 'http://localhost:10001/dev1' },
      want: { storage: { accountName: 'dev1', accountKey: KEY, blobEndpoint: 'http://127.0.0.1:10000/dev1', queueEndpoint: 'http://localhost:10001/dev1' } },
    },
    {
      reason: 'a connection string with an endpoint suffix',
      data: { connectionString: `DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey=${KEY};EndpointSuffix=core.chinacloudapi.cn` },
      want: {
        storage: {
          accountName: 'shopdata',
          accountKey: KEY,
          blobEndpoint: 'https://shopdata.blob.core.chinacloudapi.cn',
          queueEndpoint: 'https://shopdata.queue.core.chinacloudapi.cn',
        },
      },
    },
    {
      reason: 'a connection string with service endpoints, keys in any case',
      data: { connectionString: `accountname=dev1;accountkey=${KEY};BlobEndpoint=http://127.0.0.1:1/dev1;QueueEndpoint=http://127.0.0.1:2/dev1;` },
      want: { storage: { accountName: 'dev1', accountKey: KEY, blobEndpoint: 'http://127.0.0.1:1/dev1', queueEndpoint: 'http://127.0.0.1:2/dev1' } },
    },
    {
      reason: 'UseDevelopmentStorage: Azurite on its default ports',
      data: { connectionString: 'UseDevelopmentStorage=true' },
      want: /./,
    },
    {
      reason: 'a storage account and a service principal with subscription and resource group',
      data: {
        accountName: 'shopdata',
        accountKey: KEY,
        tenantId: 'contoso.onmicrosoft.com',
        clientId: GUID,
        clientSecret: SECRET,
        subscriptionId: GUID,
        resourceGroup: 'shop-prod',
      },
      want: {
        storage: {
          accountName: 'shopdata',
          accountKey: KEY,
          blobEndpoint: 'https://shopdata.blob.core.windows.net',
          queueEndpoint: 'https://shopdata.queue.core.windows.net',
        },
        arm: {
          principal: { tenantId: 'contoso.onmicrosoft.com', clientId: GUID, clientSecret: SECRET },
          subscriptionId: GUID,
          resourceGroup: 'shop-prod',
          armEndpoint: 'https://management.azure.com',
          authorityHost: 'https://login.microsoftonline.com',
          adminPasswordKey: SECRET,
        },
        servicePrincipal: { tenantId: 'contoso.onmicrosoft.com', clientId: GUID, clientSecret: SECRET },
        subscriptionId: GUID,
      },
    },
    {
      reason: 'only a service principal (the database and cache kinds), endpoints overridden, a password key',
      data: {
        tenantId: GUID,
        clientId: GUID,
        clientSecret: SECRET,
        subscriptionId: GUID,
        resourceGroup: 'rg_1(a).b',
        armEndpoint: 'https://127.0.0.1:8443/',
        authorityHost: 'https://127.0.0.1:8443',
        adminPasswordKey: 'a-long-random-password-key',
      },
      want: {
        arm: {
          principal: { tenantId: GUID, clientId: GUID, clientSecret: SECRET },
          subscriptionId: GUID,
          resourceGroup: 'rg_1(a).b',
          armEndpoint: 'https://127.0.0.1:8443',
          authorityHost: 'https://127.0.0.1:8443',
          adminPasswordKey: 'a-long-random-password-key',
        },
        servicePrincipal: { tenantId: GUID, clientId: GUID, clientSecret: SECRET },
        subscriptionId: GUID,
      },
    },
    {
      reason: 'a service principal without subscription and resource group',
      data: { tenantId: GUID, clientId: GUID, clientSecret: SECRET },
      want: /has a service principal but no subscriptionId and resourceGroup: add them/,
    },
    {
      reason: 'a resource group name Azure refuses',
      data: { tenantId: GUID, clientId: GUID, clientSecret: SECRET, subscriptionId: GUID, resourceGroup: 'ends-in-a-period.' },
      want: /key resourceGroup is not a resource group name/,
    },
    {
      reason: 'an ARM endpoint over plain http',
      data: { tenantId: GUID, clientId: GUID, clientSecret: SECRET, subscriptionId: GUID, resourceGroup: 'rg', armEndpoint: 'http://127.0.0.1:1' },
      want: /key armEndpoint is not an https URL/,
    },
    {
      reason: 'a short admin password key',
      data: { tenantId: GUID, clientId: GUID, clientSecret: SECRET, subscriptionId: GUID, resourceGroup: 'rg', adminPasswordKey: 'short' },
      want: /key adminPasswordKey is shorter than 16 characters/,
    },
    { reason: 'nothing at all', data: undefined, want: /names no credentials Secret, or it is empty/ },
    {
      reason: 'neither form',
      data: { subscriptionId: GUID },
      want: /neither accountName and accountKey nor connectionString .* nor tenantId, clientId and clientSecret/,
    },
    { reason: 'half a service principal and nothing else', data: { tenantId: GUID }, want: /part of a service principal: add clientId and clientSecret/ },
    { reason: 'a name without a key', data: { accountName: 'shopdata' }, want: /has accountName but no accountKey: add accountKey/ },
    { reason: 'a key without a name', data: { accountKey: KEY }, want: /has accountKey but no accountName: add accountName/ },
    {
      reason: 'both forms',
      data: { accountName: 'a1b', accountKey: KEY, connectionString: 'UseDevelopmentStorage=true' },
      want: /both connectionString and accountName/,
    },
    {
      reason: 'an account name Azure refuses',
      data: { accountName: 'Shop_Data', accountKey: KEY },
      want: /key accountName is not a storage account name: want 3 to 24/,
    },
    { reason: 'a key that is not base64', data: { accountName: 'shopdata', accountKey: 'not a key!' }, want: /key accountKey is not a storage account key/ },
    {
      reason: 'plain http to another host',
      data: { accountName: 'shopdata', accountKey: KEY, blobEndpoint: 'http://10.0.0.1:10000/x' },
      want: /key blobEndpoint uses http to a host that is not this machine/,
    },
    {
      reason: 'an endpoint with a query',
      data: { accountName: 'shopdata', accountKey: KEY, queueEndpoint: 'https://q.example/?sig=1' },
      want: /key queueEndpoint has a user, query or fragment/,
    },
    {
      reason: 'an endpoint that is no URL',
      data: { accountName: 'shopdata', accountKey: KEY, queueEndpoint: 'nowhere' },
      want: /key queueEndpoint is not a URL/,
    },
    {
      reason: 'a connection string with a SAS only',
      data: { connectionString: 'BlobEndpoint=https://a.example;SharedAccessSignature=sv=1&sig=2' },
      want: /holds a SharedAccessSignature: .* needs the account key/,
    },
    { reason: 'a connection string without a key', data: { connectionString: 'AccountName=shopdata' }, want: /connectionString has no AccountKey/ },
    {
      reason: 'a connection string that is not pairs',
      data: { connectionString: 'just-some-text' },
      want: /connectionString is not a list of Name=Value pairs/,
    },
    {
      reason: 'part of a service principal',
      data: { accountName: 'shopdata', accountKey: KEY, clientId: GUID },
      want: /part of a service principal: add tenantId and clientSecret/,
    },
    {
      reason: 'a client ID that is not a GUID',
      data: { accountName: 'shopdata', accountKey: KEY, tenantId: GUID, clientId: 'app', clientSecret: SECRET },
      want: /key clientId is not a GUID/,
    },
    {
      reason: 'a subscription that is not a GUID',
      data: { accountName: 'shopdata', accountKey: KEY, subscriptionId: 'prod' },
      want: /key subscriptionId is not a GUID/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (c.want instanceof RegExp) {
        if (c.reason.startsWith('UseDevelopmentStorage')) {
          const got = azureCredentialsFrom(c.data);
          assert.equal(got.storage?.accountName, 'devstoreaccount1');
          assert.equal(got.storage?.blobEndpoint, 'http://127.0.0.1:10000/devstoreaccount1');
          assert.equal(got.storage?.queueEndpoint, 'http://127.0.0.1:10001/devstoreaccount1');
          return;
        }
        assert.throws(
          () => azureCredentialsFrom(c.data),
          (err: Error) => err instanceof CredentialsError && (c.want as RegExp).test(err.message),
        );
      } else {
        assert.deepEqual(azureCredentialsFrom(c.data), c.want);
      }
    });
  }

  test('no error quotes a value of the Secret', () => {
    const secretish = 'S3cr3tV4lue';
    const bad: Record<string, string>[] = [
      { accountName: secretish, accountKey: KEY },
      { accountName: 'shopdata', accountKey: `${secretish}!` },
      { connectionString: `AccountName=${secretish};AccountKey=${KEY}` },
      { accountName: 'shopdata', accountKey: KEY, blobEndpoint: `http://${secretish}.example` },
      { accountName: 'shopdata', accountKey: KEY, tenantId: GUID, clientId: secretish, clientSecret: secretish },
    ];
    for (const data of bad) {
      assert.throws(
        () => azureCredentialsFrom(data),
        (err: Error) => !err.message.includes(secretish) && !err.message.toLowerCase().includes(secretish.toLowerCase()),
      );
    }
  });
});
