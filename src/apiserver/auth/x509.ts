import {
  constants,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  generateKeyPairSync,
  privateEncrypt,
  randomBytes,
  X509Certificate,
  type KeyObject,
  type RSAKeyPairOptions,
} from 'node:crypto';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type * as Forge from 'node-forge';

// node-forge takes ~35 ms to load, and only certificate issuing needs it, so it is loaded on
// first use: a warm start that only reads existing certificates never pays for it.
const require = createRequire(import.meta.url);
let forgeModule: typeof Forge | undefined;
function forge(): typeof Forge {
  forgeModule ??= require('node-forge') as typeof Forge;
  return forgeModule;
}

/** The RSA modulus size of every key Conductor generates. */
export const RSA_KEY_BITS = 2048;

/** A KeyPairPem holds a private key (PKCS#8 PEM) and its public key (SPKI PEM). */
export interface KeyPairPem {
  keyPem: string;
  publicKeyPem: string;
}

const rsaOptions: RSAKeyPairOptions<'pem', 'pem'> = {
  modulusLength: RSA_KEY_BITS,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
};

/**
 * generateRsaKey creates an RSA key pair with node:crypto on the libuv thread pool, so several
 * keys can be generated in parallel without blocking the event loop (forge's pure-JS key
 * generation takes seconds).
 */
export function generateRsaKey(): Promise<KeyPairPem> {
  return new Promise((resolve, reject) => {
    generateKeyPair('rsa', rsaOptions, (err, publicKeyPem, keyPem) => {
      if (err) reject(new Error(`cannot generate an RSA key: ${err.message}`));
      else resolve({ keyPem, publicKeyPem });
    });
  });
}

/** generateRsaKeySync is generateRsaKey for synchronous callers (it blocks for ~100 ms). */
export function generateRsaKeySync(): KeyPairPem {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', rsaOptions);
  return { keyPem: privateKey, publicKeyPem: publicKey };
}

/** A CertificateProfile says what a certificate may be used for. */
export type CertificateProfile = 'ca' | 'server' | 'client';

/** A CertificateRequest describes the certificate to issue. */
export interface CertificateRequest {
  profile: CertificateProfile;
  commonName: string;
  organizations?: string[];
  /** DNS names and IP addresses the certificate is valid for (server certificates). */
  subjectAltNames?: string[];
  /** The public key to certify, as SPKI PEM. */
  publicKeyPem: string;
  /** How long the certificate is valid, from now. */
  days: number;
  /** The clock; tests move it. */
  now?: Date;
}

/**
 * A Signer is the key that signs a certificate, and the certificate of that key unless the
 * certificate being issued is self-signed.
 */
export interface Signer {
  keyPem: string;
  certPem?: string;
}

/** Certificates are back-dated by this much so a client whose clock lags accepts them. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

// DER prefix of the PKCS#1 v1.5 DigestInfo for SHA-256 (RFC 8017, section 9.2, note 1).
const SHA256_DIGEST_INFO_PREFIX = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * createCertificate issues an X.509 v3 certificate signed with SHA-256 and RSA and returns it as
 * PEM. forge builds the certificate; node:crypto performs the RSA signature.
 */
export function createCertificate(req: CertificateRequest, signer: Signer): string {
  if (!req.commonName) throw new Error('cannot issue a certificate: the common name is empty, expected a name');
  if (!Number.isFinite(req.days) || req.days <= 0) {
    throw new Error(`cannot issue a certificate for ${req.commonName}: validity is ${req.days} days, expected a positive number`);
  }
  const f = forge();
  const signingKey = createPrivateKey(signer.keyPem);
  if (signingKey.asymmetricKeyType !== 'rsa') {
    throw new Error(`cannot issue a certificate for ${req.commonName}: the signing key is ${signingKey.asymmetricKeyType}, expected rsa`);
  }

  const cert = f.pki.createCertificate();
  cert.publicKey = f.pki.publicKeyFromPem(req.publicKeyPem);
  cert.serialNumber = randomSerialHex();
  const now = req.now ?? new Date();
  cert.validity.notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
  cert.validity.notAfter = new Date(now.getTime() + req.days * 24 * 60 * 60 * 1000);

  const subject: Forge.pki.CertificateField[] = [
    ...(req.organizations ?? []).map((o) => ({ shortName: 'O', value: o })),
    { shortName: 'CN', value: req.commonName },
  ];
  cert.setSubject(subject);

  let authorityKeyId: string | undefined; // binary string
  if (signer.certPem === undefined) {
    cert.setIssuer(subject);
  } else {
    const issuer = f.pki.certificateFromPem(signer.certPem);
    cert.setIssuer(issuer.subject.attributes);
    const ski = issuer.getExtension('subjectKeyIdentifier') as { subjectKeyIdentifier?: string } | null;
    authorityKeyId = ski?.subjectKeyIdentifier ? f.util.hexToBytes(ski.subjectKeyIdentifier) : issuer.generateSubjectKeyIdentifier().getBytes();
  }

  cert.setExtensions(extensionsFor(req, authorityKeyId));
  cert.sign(rsaSigner(signingKey), f.md.sha256.create());
  return f.pki.certificateToPem(cert).replace(/\r\n/g, '\n');
}

function extensionsFor(req: CertificateRequest, authorityKeyId: string | undefined): object[] {
  const exts: object[] = [];
  switch (req.profile) {
    case 'ca':
      exts.push(
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      );
      break;
    case 'server':
      exts.push(
        { name: 'basicConstraints', cA: false, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
      );
      break;
    case 'client':
      exts.push(
        { name: 'basicConstraints', cA: false, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', clientAuth: true },
      );
      break;
    default: {
      const never: never = req.profile;
      throw new Error(`unknown certificate profile ${String(never)}, expected ca, server or client`);
    }
  }
  const sans = uniqueNames(req.subjectAltNames ?? []);
  if (sans.length > 0) {
    exts.push({
      name: 'subjectAltName',
      altNames: sans.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })),
    });
  }
  exts.push({ name: 'subjectKeyIdentifier' });
  if (authorityKeyId !== undefined) exts.push({ name: 'authorityKeyIdentifier', keyIdentifier: authorityKeyId });
  return exts;
}

/**
 * normalizeName turns a host as given on a command line into the form it takes in a
 * certificate: IPv6 brackets removed, DNS names lower-cased.
 */
export function normalizeName(name: string): string {
  const trimmed = name.trim();
  const unbracketed = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
  return isIP(unbracketed) ? unbracketed : unbracketed.toLowerCase();
}

function uniqueNames(names: string[]): string[] {
  const out: string[] = [];
  for (const n of names.map(normalizeName)) if (n && !out.includes(n)) out.push(n);
  return out;
}

/** A certificate serial: 16 random bytes, positive and minimally encoded (Go rejects others). */
function randomSerialHex(): string {
  const b = randomBytes(16);
  b[0] = (b[0] & 0x3f) | 0x40;
  return b.toString('hex');
}

/**
 * rsaSigner adapts a node:crypto key to forge's signing interface: forge hands over the SHA-256
 * digest of the to-be-signed certificate, and the key returns the PKCS#1 v1.5 signature as a
 * binary string. Native RSA is ~50x faster than forge's.
 */
function rsaSigner(key: KeyObject): Forge.pki.rsa.PrivateKey {
  const signer = {
    sign(md: Forge.md.MessageDigest): string {
      const digest = Buffer.from(md.digest().getBytes(), 'binary');
      const encoded = Buffer.concat([SHA256_DIGEST_INFO_PREFIX, digest]);
      return privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, encoded).toString('binary');
    },
  };
  return signer as unknown as Forge.pki.rsa.PrivateKey;
}

/** A CertificateCheck lists what makes an existing certificate unusable; empty means usable. */
export interface CertificateCheck {
  /** The CA that must have signed it. */
  ca: X509Certificate;
  /** Its private key, which must match. */
  keyPem: string;
  /** It must stay valid for at least this long. */
  minRemainingMs: number;
  /** DNS names and IPs it must cover. */
  names?: string[];
  /** The subject it must carry. */
  commonName?: string;
  organizations?: string[];
  now?: Date;
}

/**
 * certificateProblems says why certPem cannot be used as it is (signed by another CA, key
 * mismatch, expiring, names missing); an empty list means it can be reused. It only uses
 * node:crypto, so checking certificates on a warm start costs about a millisecond.
 */
export function certificateProblems(certPem: string, check: CertificateCheck): string[] {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err) {
    return [`not a PEM certificate: ${(err as Error).message}`];
  }
  const problems: string[] = [];
  if (!cert.checkIssued(check.ca) || !cert.verify(check.ca.publicKey)) problems.push('not signed by the CA');
  try {
    if (!cert.checkPrivateKey(createPrivateKey(check.keyPem))) problems.push('does not match its private key');
  } catch (err) {
    problems.push(`has an unreadable private key: ${(err as Error).message}`);
  }
  const now = (check.now ?? new Date()).getTime();
  if (Date.parse(cert.validTo) - now < check.minRemainingMs) problems.push(`expires soon (${cert.validTo})`);
  if (Date.parse(cert.validFrom) > now + CLOCK_SKEW_MS) problems.push(`is not valid yet (${cert.validFrom})`);
  for (const name of check.names ?? []) {
    if (!certificateCovers(cert, name)) problems.push(`does not cover ${name}`);
  }
  if (check.commonName !== undefined || check.organizations !== undefined) {
    const subject = parseSubject(cert.subject);
    if (check.commonName !== undefined && subject.CN.at(-1) !== check.commonName) {
      problems.push(`has common name ${subject.CN.join(',')}, expected ${check.commonName}`);
    }
    if (check.organizations !== undefined && !sameSet(subject.O, check.organizations)) {
      problems.push(`has organizations ${subject.O.join(',')}, expected ${check.organizations.join(',')}`);
    }
  }
  return problems;
}

/** certificateCovers says whether a certificate's subject alternative names include name. */
export function certificateCovers(cert: X509Certificate, name: string): boolean {
  const n = normalizeName(name);
  return isIP(n) ? cert.checkIP(n) !== undefined : cert.checkHost(n, { subject: 'never', wildcards: false }) !== undefined;
}

/** publicKeyPemOf returns the SPKI PEM of a private key. */
export function publicKeyPemOf(keyPem: string): string {
  return createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'pem' }).toString();
}

// X509Certificate.subject is one "KEY=value" per line; values are not escaped but our subjects
// never contain newlines.
function parseSubject(subject: string): { CN: string[]; O: string[] } {
  const out = { CN: [] as string[], O: [] as string[] };
  for (const line of subject.split('\n')) {
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    if (key === 'CN' || key === 'O') out[key].push(line.slice(eq + 1));
  }
  return out;
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x)) && b.every((x) => a.includes(x));
}
