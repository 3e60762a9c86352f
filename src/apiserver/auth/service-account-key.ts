import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PUBLIC_FILE_MODE, readIfExists, SECRET_FILE_MODE, writeFileAtomic } from './files.js';
import { keyIdOf } from './jwt.js';

const generateKeyPairAsync = promisify(generateKeyPair);

/** A ServiceAccountSigningKey signs ServiceAccount tokens; its public half verifies them. */
export interface ServiceAccountSigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The key id written into every token's header (see keyIdOf). */
  kid: string;
}

/** serviceAccountKeyPaths returns where the signing key of a data directory lives. */
export function serviceAccountKeyPaths(dataDir: string): { key: string; pub: string } {
  return { key: join(dataDir, 'pki', 'sa.key'), pub: join(dataDir, 'pki', 'sa.pub') };
}

/**
 * ensureServiceAccountKey loads the ServiceAccount token signing key (EC P-256) from
 * `<dataDir>/pki/sa.key`, creating it on first start (0600, written atomically) together with its
 * public key `pki/sa.pub` (0644, for anyone who wants to verify tokens offline). The key is never
 * replaced: replacing it would invalidate every issued token.
 */
export async function ensureServiceAccountKey(dataDir: string): Promise<ServiceAccountSigningKey> {
  const paths = serviceAccountKeyPaths(dataDir);
  const pem = await readIfExists(paths.key);
  if (pem !== undefined) {
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(pem);
    } catch (err) {
      throw new Error(`cannot load the service account signing key: ${paths.key} is not a PEM private key: ${(err as Error).message}`, { cause: err });
    }
    if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new Error(
        `cannot load the service account signing key: ${paths.key} is not an EC P-256 key, expected one (remove it to create a new key, which invalidates issued tokens)`,
      );
    }
    const publicKey = createPublicKey(privateKey);
    const pubPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    if ((await readIfExists(paths.pub)) !== pubPem) await writeFileAtomic(paths.pub, pubPem, PUBLIC_FILE_MODE);
    return { privateKey, publicKey, kid: keyIdOf(publicKey) };
  }
  const { privateKey, publicKey } = await generateKeyPairAsync('ec', { namedCurve: 'P-256' });
  await writeFileAtomic(paths.key, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), SECRET_FILE_MODE);
  await writeFileAtomic(paths.pub, publicKey.export({ type: 'spki', format: 'pem' }).toString(), PUBLIC_FILE_MODE);
  return { privateKey, publicKey, kid: keyIdOf(publicKey) };
}
