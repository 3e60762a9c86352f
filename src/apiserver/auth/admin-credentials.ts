import { randomBytes, X509Certificate } from 'node:crypto';
import { signClientCertificate } from './client-certificates.js';
import { PUBLIC_FILE_MODE, readIfExists, SECRET_FILE_MODE, writeFileAtomic } from './files.js';
import { LEAF_VALIDITY_DAYS, loadCaKey, pkiPaths, RENEW_BEFORE_MS, type Pki } from './pki.js';
import { certificateProblems, generateRsaKey } from './x509.js';
import { ADMIN_USER_NAME, MASTERS_GROUP } from './user-info.js';

/** AdminCredentials are the administrator's bearer token and client certificate. */
export interface AdminCredentials {
  token: string;
  certPem: string;
  keyPem: string;
}

/** EnsureAdminOptions adjusts ensureAdminCredentials. */
export interface EnsureAdminOptions {
  /** The clock; tests move it. */
  now?: Date;
}

/**
 * ensureAdminToken loads the admin bearer token from dataDir, creating it (32 random bytes in
 * base64url) on first start. It needs no certificate, so the server can set up authentication
 * while its keys are still being generated.
 */
export async function ensureAdminToken(dataDir: string): Promise<string> {
  const path = pkiPaths(dataDir).adminToken;
  // An empty token file counts as missing; anything else that is no valid token is an error.
  const token = (await readIfExists(path))?.trim() || undefined;
  if (token !== undefined && !/^[A-Za-z0-9._~+/=-]+$/.test(token)) {
    throw new Error(`cannot load the admin token: ${path} holds characters not allowed in a bearer token, expected base64url`);
  }
  if (token !== undefined) return token;
  const created = randomBytes(32).toString('base64url');
  await writeFileAtomic(path, `${created}\n`, SECRET_FILE_MODE);
  return created;
}

/**
 * ensureAdminCredentials loads the admin token and admin client certificate from dataDir,
 * creating them on first start: the token is 32 random bytes in base64url, the certificate has
 * CN conductor-admin and O system:masters. The certificate is re-issued (with a new key) when
 * it no longer verifies against the CA or expires within 30 days; the token is kept forever.
 * `pkiReady` may be the CA still being made: the files are read and a missing key generated
 * meanwhile.
 */
export async function ensureAdminCredentials(
  dataDir: string,
  pkiReady: Pick<Pki, 'caCertPem'> | Promise<Pick<Pki, 'caCertPem'>>,
  opts: EnsureAdminOptions = {},
): Promise<AdminCredentials> {
  const paths = pkiPaths(dataDir);
  const [token, certPem0, keyPem0] = await Promise.all([ensureAdminToken(dataDir), readIfExists(paths.adminCert), readIfExists(paths.adminKey)]);
  // Missing (a new data dir): the key is made now, on the thread pool beside the CA's and the
  // serving key, rather than after them; only signing waits for the CA.
  const newKey = certPem0 === undefined || keyPem0 === undefined ? generateRsaKey() : undefined;
  newKey?.catch(() => undefined); // awaited below; a failure of the CA first must not leave it unhandled
  const pki = await pkiReady;

  if (certPem0 !== undefined && keyPem0 !== undefined) {
    const problems = certificateProblems(certPem0, {
      ca: new X509Certificate(pki.caCertPem),
      keyPem: keyPem0,
      minRemainingMs: RENEW_BEFORE_MS,
      commonName: ADMIN_USER_NAME,
      organizations: [MASTERS_GROUP],
      now: opts.now,
    });
    if (problems.length === 0) return { token, certPem: certPem0, keyPem: keyPem0 };
  }

  const caKeyPem = await loadCaKey(dataDir);
  const issued = signClientCertificate(
    pki.caCertPem,
    caKeyPem,
    { commonName: ADMIN_USER_NAME, organizations: [MASTERS_GROUP], days: LEAF_VALIDITY_DAYS, now: opts.now },
    await (newKey ?? generateRsaKey()),
  );
  await writeFileAtomic(paths.adminKey, issued.keyPem, SECRET_FILE_MODE);
  await writeFileAtomic(paths.adminCert, issued.certPem, PUBLIC_FILE_MODE);
  return { token, ...issued };
}
