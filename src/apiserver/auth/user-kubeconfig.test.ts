import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ensureAdminCredentials } from './admin-credentials.js';
import { writeKubeconfig } from './kubeconfig.js';
import { ensurePki } from './pki.js';
import { addUser, groupProblem, serverUrlFromKubeconfig, userNameProblem, UserInputError } from './user-kubeconfig.js';

describe('userNameProblem', () => {
  const cases: Array<{ reason: string; name: string; bad?: RegExp }> = [
    { reason: 'a plain name', name: 'alice' },
    { reason: 'an e-mail address', name: 'alice.smith@example.com' },
    { reason: 'empty', name: '', bad: /is empty/ },
    { reason: 'a slash would escape the users directory', name: '../etc', bad: /is not valid/ },
    { reason: 'a colon (system: names are reserved)', name: 'system:kube-scheduler', bad: /is not valid/ },
    { reason: 'a space', name: 'alice smith', bad: /is not valid/ },
    { reason: 'a trailing dot', name: 'alice.', bad: /is not valid/ },
    { reason: 'longer than a CN may be', name: 'a'.repeat(65), bad: /65 characters long, expected at most 64/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const p = userNameProblem(c.name);
      if (c.bad) assert.match(p ?? '', c.bad);
      else assert.equal(p, undefined);
    });
  }
});

describe('groupProblem', () => {
  const cases: Array<{ reason: string; group: string; bad?: RegExp }> = [
    { reason: 'a plain group', group: 'developers' },
    { reason: 'system:masters may be given on purpose', group: 'system:masters' },
    { reason: 'a path-like group', group: 'org/team-a' },
    { reason: 'empty', group: '', bad: /is empty/ },
    { reason: 'a comma', group: 'a,b', bad: /is not valid/ },
    { reason: 'system:authenticated is assigned by the server', group: 'system:authenticated', bad: /assigned by the server/ },
    { reason: 'service-account groups are assigned by the server', group: 'system:serviceaccounts:team-a', bad: /assigned by the server/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const p = groupProblem(c.group);
      if (c.bad) assert.match(p ?? '', c.bad);
      else assert.equal(p, undefined);
    });
  }
});

describe('serverUrlFromKubeconfig', () => {
  const cases: Array<{ reason: string; text: string; want: string | undefined }> = [
    { reason: 'a plain scalar', text: 'clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:6443\n', want: 'https://127.0.0.1:6443' },
    { reason: 'a double-quoted scalar (IPv6)', text: 'clusters:\n- cluster:\n    server: "https://[::1]:6443"\n', want: 'https://[::1]:6443' },
    { reason: 'a single-quoted scalar', text: "clusters:\n- cluster:\n    server: 'https://h:1'\n", want: 'https://h:1' },
    { reason: 'no server line', text: 'apiVersion: v1\n', want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(serverUrlFromKubeconfig(c.text), c.want));
});

describe('addUser', () => {
  test("issues a certificate from the CA (CN name, O groups) and writes a 0600 kubeconfig with the admin kubeconfig's server", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'user-add-'));
    try {
      const pki = await ensurePki(dir, '127.0.0.1');
      const admin = await ensureAdminCredentials(dir, pki);
      await writeKubeconfig(dir, {
        server: 'https://127.0.0.1:7443',
        caPem: pki.caCertPem,
        token: admin.token,
        clientCertPem: admin.certPem,
        clientKeyPem: admin.keyPem,
      });

      const added = await addUser({ dataDir: dir, name: 'alice', groups: ['devs', 'qa', 'devs'], days: 30 });
      assert.equal(added.kubeconfigPath, join(dir, 'users', 'alice.kubeconfig'));
      assert.equal(statSync(added.kubeconfigPath).mode & 0o777, 0o600);
      assert.deepEqual(added.groups, ['devs', 'qa']);
      const kc = parse(readFileSync(added.kubeconfigPath, 'utf8')) as {
        clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
        users: Array<{ name: string; user: Record<string, string> }>;
        'current-context': string;
      };
      assert.equal(kc.clusters[0].cluster.server, 'https://127.0.0.1:7443');
      assert.equal(Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), pki.caCertPem);
      assert.equal(kc['current-context'], 'alice@conductor');
      const cert = new X509Certificate(Buffer.from(kc.users[0].user['client-certificate-data'], 'base64'));
      assert.ok(cert.verify(new X509Certificate(pki.caCertPem).publicKey));
      assert.match(cert.subject, /CN=alice/);
      assert.match(cert.subject, /O=devs/);
      assert.match(cert.subject, /O=qa/);
      const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
      assert.ok(days >= 29 && days <= 31, `validity ${days} days`);

      const elsewhere = join(dir, 'out', 'bob.yaml');
      const bob = await addUser({ dataDir: dir, name: 'bob', groups: [], out: elsewhere, server: 'https://conductor.example:443' });
      assert.equal(bob.kubeconfigPath, elsewhere);
      assert.match(readFileSync(elsewhere, 'utf8'), /server: https:\/\/conductor.example:443/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const bad: Array<{ reason: string; name: string; groups?: string[]; days?: number; server?: string; want: RegExp; input: boolean }> = [
    { reason: 'a bad name is an input error', name: 'a b', want: /user name "a b" is not valid/, input: true },
    { reason: 'a bad group is an input error', name: 'a', groups: ['system:authenticated'], want: /assigned by the server/, input: true },
    { reason: 'zero days is an input error', name: 'a', days: 0, want: /--days is 0/, input: true },
    { reason: 'a plain-http server is an input error', name: 'a', server: 'http://x', want: /expected an https:\/\/ URL/, input: true },
    { reason: 'a data directory without a CA', name: 'a', want: /ca.crt does not exist/, input: false },
  ];
  for (const c of bad) {
    test(c.reason, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'user-add-'));
      try {
        await assert.rejects(addUser({ dataDir: dir, name: c.name, groups: c.groups ?? [], days: c.days, server: c.server }), (err: Error) => {
          assert.match(err.message, c.want);
          assert.equal(err instanceof UserInputError, c.input);
          return true;
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
