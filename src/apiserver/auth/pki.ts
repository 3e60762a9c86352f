import { createPrivateKey, X509Certificate } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { TlsOptions } from 'node:tls';
import { PUBLIC_FILE_MODE, readIfExists, SECRET_FILE_MODE, writeFileAtomic } from './files.js';
import { certificateProblems, createCertificate, generateRsaKey, normalizeName, type KeyPairPem } from './x509.js';

/** A Pki holds what the API server needs to serve TLS and to verify client certificates. */
export interface Pki {
  caCertPem: string;
  serverCertPem: string;
  serverKeyPem: string;
}

/** PkiPaths names the files `conductor server` keeps in its data directory. */
export interface PkiPaths {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  adminCert: string;
  adminKey: string;
  adminToken: string;
  kubeconfig: string;
}

/** pkiPaths returns where the credentials of a data directory live (all but the kubeconfig in pki/). */
export function pkiPaths(dataDir: string): PkiPaths {
  const dir = join(dataDir, 'pki');
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
    adminCert: join(dir, 'admin.crt'),
    adminKey: join(dir, 'admin.key'),
    adminToken: join(dir, 'admin.token'),
    kubeconfig: join(dataDir, 'kubeconfig'),
  };
}

/** The CA's common name. */
export const CA_COMMON_NAME = 'conductor-ca';
/** How long a new CA is valid. */
export const CA_VALIDITY_DAYS = 3650;
/** How long a new serving or admin client certificate is valid. */
export const LEAF_VALIDITY_DAYS = 365;
/** A serving or admin certificate with less validity left than this is re-issued on start. */
export const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

/** EnsurePkiOptions adjusts ensurePki. */
export interface EnsurePkiOptions {
  /** More DNS names or IPs the serving certificate must cover. */
  extraSans?: string[];
  /** The clock; tests move it. */
  now?: Date;
}

/**
 * servingNames lists the names the serving certificate must cover for host: the host itself,
 * localhost and both loopback addresses, the machine's host name when host is a wildcard
 * address (0.0.0.0 or ::), and any extra names.
 */
export function servingNames(host: string, extraSans: string[] = []): string[] {
  const h = normalizeName(host);
  const names = [h, 'localhost', '127.0.0.1', '::1'];
  if (h === '0.0.0.0' || h === '::') names.push(normalizeName(hostname()));
  names.push(...extraSans.map(normalizeName));
  return [...new Set(names.filter((n) => n !== ''))];
}

/**
 * ensurePki loads the CA and serving certificate from dataDir, creating them on first start.
 * The CA is never replaced (a half-present CA is an error, since replacing it would invalidate
 * every issued client certificate); the serving certificate is re-issued when it does not cover
 * host, does not match its key or the CA, or expires within 30 days.
 */
export async function ensurePki(dataDir: string, host: string, opts: EnsurePkiOptions = {}): Promise<Pki> {
  if (!host.trim()) throw new Error('cannot set up TLS: the host is empty, expected a DNS name or IP address');
  const paths = pkiPaths(dataDir);
  const names = servingNames(host, opts.extraSans);
  const [caCertPem0, caKeyPem0, serverCertPem0, serverKeyPem0] = await Promise.all(
    [paths.caCert, paths.caKey, paths.serverCert, paths.serverKey].map(readIfExists),
  );

  let caCertPem = caCertPem0;
  let caKeyPem = caKeyPem0;
  let serverKey: KeyPairPem | undefined;
  if (caCertPem === undefined && caKeyPem === undefined) {
    // First start: generate both keys at once on the thread pool.
    let caKey: KeyPairPem;
    [caKey, serverKey] = await Promise.all([generateRsaKey(), generateRsaKey()]);
    caKeyPem = caKey.keyPem;
    caCertPem = createCertificate(
      { profile: 'ca', commonName: CA_COMMON_NAME, publicKeyPem: caKey.publicKeyPem, days: CA_VALIDITY_DAYS, now: opts.now },
      { keyPem: caKey.keyPem },
    );
    await writeFileAtomic(paths.caKey, caKeyPem, SECRET_FILE_MODE);
    await writeFileAtomic(paths.caCert, caCertPem, PUBLIC_FILE_MODE);
  } else if (caCertPem === undefined || caKeyPem === undefined) {
    const [have, missing] = caCertPem === undefined ? [paths.caKey, paths.caCert] : [paths.caCert, paths.caKey];
    throw new Error(
      `cannot load the CA: found ${have} but not ${missing}; restore ${missing}, or remove ${have} to create a new CA (which invalidates issued certificates)`,
    );
  }
  const ca = parseCa(caCertPem, caKeyPem, paths);

  if (serverCertPem0 !== undefined && serverKeyPem0 !== undefined) {
    const problems = certificateProblems(serverCertPem0, {
      ca,
      keyPem: serverKeyPem0,
      minRemainingMs: RENEW_BEFORE_MS,
      names,
      now: opts.now,
    });
    if (problems.length === 0) return { caCertPem, serverCertPem: serverCertPem0, serverKeyPem: serverKeyPem0 };
  }

  serverKey ??= await generateRsaKey();
  const serverCertPem = createCertificate(
    {
      profile: 'server',
      commonName: names[0],
      subjectAltNames: names,
      publicKeyPem: serverKey.publicKeyPem,
      days: LEAF_VALIDITY_DAYS,
      now: opts.now,
    },
    { keyPem: caKeyPem, certPem: caCertPem },
  );
  await writeFileAtomic(paths.serverKey, serverKey.keyPem, SECRET_FILE_MODE);
  await writeFileAtomic(paths.serverCert, serverCertPem, PUBLIC_FILE_MODE);
  return { caCertPem, serverCertPem, serverKeyPem: serverKey.keyPem };
}

/** loadCaKey reads the CA's private key from dataDir (for issuing client certificates). */
export async function loadCaKey(dataDir: string): Promise<string> {
  const path = pkiPaths(dataDir).caKey;
  const pem = await readIfExists(path);
  if (pem === undefined) throw new Error(`cannot load the CA key: ${path} does not exist, expected it to be created by conductor server`);
  return pem;
}

function parseCa(caCertPem: string, caKeyPem: string, paths: PkiPaths): X509Certificate {
  let ca: X509Certificate;
  try {
    ca = new X509Certificate(caCertPem);
  } catch (err) {
    throw new Error(`cannot load the CA: ${paths.caCert} is not a PEM certificate: ${(err as Error).message}`, { cause: err });
  }
  if (!ca.ca) throw new Error(`cannot load the CA: ${paths.caCert} is not a CA certificate, expected basicConstraints CA:TRUE`);
  let matches: boolean;
  try {
    matches = ca.checkPrivateKey(createPrivateKey(caKeyPem));
  } catch (err) {
    throw new Error(`cannot load the CA: ${paths.caKey} is not a PEM private key: ${(err as Error).message}`, { cause: err });
  }
  if (!matches) throw new Error(`cannot load the CA: ${paths.caKey} is not the key of ${paths.caCert}`);
  return ca;
}

/**
 * tlsServerOptions returns the node:tls / node:https server options for the API server: its
 * serving certificate, and client certificates requested (but not required) and checked
 * against the CA; the authenticator only trusts a certificate when the socket is authorized.
 */
export function tlsServerOptions(pki: Pki): TlsOptions {
  return {
    key: pki.serverKeyPem,
    cert: pki.serverCertPem,
    ca: pki.caCertPem,
    requestCert: true,
    rejectUnauthorized: false,
    minVersion: 'TLSv1.2',
  };
}
