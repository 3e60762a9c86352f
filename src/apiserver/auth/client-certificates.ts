import { createCertificate, generateRsaKey, generateRsaKeySync, type KeyPairPem } from './x509.js';
import type { Pki } from './pki.js';

/** ClientCertificateOptions describes the user a client certificate stands for. */
export interface ClientCertificateOptions {
  /** The user name (the certificate's CN). */
  commonName: string;
  /** The user's groups (one O attribute each). */
  organizations?: string[];
  /** How long the certificate is valid; 365 days unless given. */
  days?: number;
  /** The clock; tests move it. */
  now?: Date;
}

/** An IssuedCertificate is a certificate and its new private key, both PEM. */
export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
}

/**
 * issueClientCertificate creates a key pair and a client-authentication certificate for it,
 * signed by the CA; the API server maps it to user CN in groups O. It blocks for ~100 ms while
 * the RSA key is generated (it serves `conductor user add`).
 */
export function issueClientCertificate(pki: Pick<Pki, 'caCertPem'>, caKeyPem: string, opts: ClientCertificateOptions): IssuedCertificate {
  return signClientCertificate(pki.caCertPem, caKeyPem, opts, generateRsaKeySync());
}

/** issueClientCertificateAsync is issueClientCertificate generating the key off the event loop. */
export async function issueClientCertificateAsync(pki: Pick<Pki, 'caCertPem'>, caKeyPem: string, opts: ClientCertificateOptions): Promise<IssuedCertificate> {
  return signClientCertificate(pki.caCertPem, caKeyPem, opts, await generateRsaKey());
}

/** signClientCertificate issues the client certificate for a key made beforehand (the server makes the admin's beside the CA's). */
export function signClientCertificate(caCertPem: string, caKeyPem: string, opts: ClientCertificateOptions, key: KeyPairPem): IssuedCertificate {
  const certPem = createCertificate(
    {
      profile: 'client',
      commonName: opts.commonName,
      organizations: opts.organizations ?? [],
      publicKeyPem: key.publicKeyPem,
      days: opts.days ?? 365,
      now: opts.now,
    },
    { keyPem: caKeyPem, certPem: caCertPem },
  );
  return { certPem, keyPem: key.keyPem };
}
