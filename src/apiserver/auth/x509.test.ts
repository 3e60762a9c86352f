import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import fc from 'fast-check';
import { certificateProblems, createCertificate, generateRsaKeySync, normalizeName, publicKeyPemOf, type KeyPairPem } from './x509.js';

describe('createCertificate', () => {
  let caKey: KeyPairPem;
  let leafKey: KeyPairPem;
  let caPem: string;
  before(() => {
    caKey = generateRsaKeySync();
    leafKey = generateRsaKeySync();
    caPem = createCertificate({ profile: 'ca', commonName: 'test-ca', publicKeyPem: caKey.publicKeyPem, days: 10 }, { keyPem: caKey.keyPem });
  });

  test('a self-signed CA verifies with its own key', () => {
    const ca = new X509Certificate(caPem);
    assert.equal(ca.ca, true);
    assert.equal(ca.subject, 'CN=test-ca');
    assert.equal(ca.issuer, 'CN=test-ca');
    assert.equal(ca.verify(ca.publicKey), true);
  });

  test('a server certificate carries IPv4, IPv6 and DNS names and the CA as issuer', () => {
    const pem = createCertificate(
      {
        profile: 'server',
        commonName: 'h',
        subjectAltNames: ['h.example', '10.0.0.1', 'fd00::7', '[::1]', 'H.EXAMPLE'],
        publicKeyPem: leafKey.publicKeyPem,
        days: 1,
      },
      { keyPem: caKey.keyPem, certPem: caPem },
    );
    const cert = new X509Certificate(pem);
    assert.equal(cert.subjectAltName, 'DNS:h.example, IP Address:10.0.0.1, IP Address:FD00:0:0:0:0:0:0:7, IP Address:0:0:0:0:0:0:0:1');
    assert.equal(cert.issuer, 'CN=test-ca');
    assert.equal(cert.verify(new X509Certificate(caPem).publicKey), true);
    assert.equal(cert.checkIP('fd00::7'), 'fd00::7');
  });

  test('a client certificate lists each organization', () => {
    const pem = createCertificate(
      { profile: 'client', commonName: 'u', organizations: ['a', 'b'], publicKeyPem: leafKey.publicKeyPem, days: 1 },
      { keyPem: caKey.keyPem, certPem: caPem },
    );
    assert.equal(new X509Certificate(pem).subject, 'O=a\nO=b\nCN=u');
    assert.deepEqual(new X509Certificate(pem).keyUsage, ['1.3.6.1.5.5.7.3.2']);
  });

  const bad: Array<{ reason: string; commonName: string; days: number; error: RegExp }> = [
    { reason: 'an empty common name', commonName: '', days: 1, error: /the common name is empty/ },
    { reason: 'zero days', commonName: 'x', days: 0, error: /validity is 0 days, expected a positive number/ },
    { reason: 'NaN days', commonName: 'x', days: Number.NaN, error: /validity is NaN days/ },
  ];
  for (const c of bad) {
    test(`refuses ${c.reason}`, () => {
      assert.throws(
        () =>
          createCertificate(
            { profile: 'client', commonName: c.commonName, publicKeyPem: leafKey.publicKeyPem, days: c.days },
            { keyPem: caKey.keyPem, certPem: caPem },
          ),
        c.error,
      );
    });
  }

  test('certificateProblems lists every reason a certificate is unusable', () => {
    const otherCa = createCertificate({ profile: 'ca', commonName: 'other', publicKeyPem: leafKey.publicKeyPem, days: 10 }, { keyPem: leafKey.keyPem });
    const pem = createCertificate(
      { profile: 'client', commonName: 'u', organizations: ['g'], publicKeyPem: leafKey.publicKeyPem, days: 2 },
      { keyPem: caKey.keyPem, certPem: caPem },
    );
    const ok = certificateProblems(pem, { ca: new X509Certificate(caPem), keyPem: leafKey.keyPem, minRemainingMs: 0, commonName: 'u', organizations: ['g'] });
    assert.deepEqual(ok, []);
    const problems = certificateProblems(pem, {
      ca: new X509Certificate(otherCa),
      keyPem: caKey.keyPem,
      minRemainingMs: 30 * 24 * 3600 * 1000,
      names: ['example.com'],
      commonName: 'v',
      organizations: ['g', 'h'],
    });
    assert.equal(problems.length, 6, problems.join('; '));
    assert.deepEqual(certificateProblems('junk', { ca: new X509Certificate(caPem), keyPem: leafKey.keyPem, minRemainingMs: 0 }).length, 1);
  });

  test('publicKeyPemOf derives the public key', () => {
    assert.equal(publicKeyPemOf(leafKey.keyPem), leafKey.publicKeyPem);
  });
});

describe('normalizeName', () => {
  test('is idempotent', () => {
    fc.assert(fc.property(fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6(), fc.string()), (s) => normalizeName(normalizeName(s)) === normalizeName(s)));
  });
  test('strips IPv6 brackets and lower-cases DNS names only', () => {
    assert.equal(normalizeName('[FD00::1]'), 'FD00::1');
    assert.equal(normalizeName(' Example.COM '), 'example.com');
  });
});
