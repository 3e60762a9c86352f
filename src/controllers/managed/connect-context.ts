/**
 * What a connector needs besides the resource: the Provider the resource names and the
 * decoded credentials Secret — the kind's own (`credentialsSecretRef(resource)`), or else
 * the one the Provider names. Connectors never read the API themselves, so providers stay
 * free of the Client and credentials are read with the controller's rights only.
 */
import { builtinRefs, type Client } from '../../client/types.js';
import { providerKind } from '../../apis/core/kinds.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { ConcreteKind, ConnectContext, ExternalClient, SecretRef } from '../../providers/spi.js';
import { errorMessage } from '../../client/logger.js';
import { redactingClient, Redactor } from './secret-redaction.js';
import { isNotFound } from '../../machinery/errors.js';

/**
 * A DependencyNotFoundError says an object `connect` needs does not exist (as opposed to one
 * that could not be read): the Provider or the credentials Secret. Deletion treats it apart.
 */
export class DependencyNotFoundError extends Error {
  constructor(
    /** `Provider ns/name` or `credentials Secret ns/name`. */
    readonly what: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DependencyNotFoundError';
  }
}

/** A ProviderNotFoundError: the Provider a resource names in `spec.providerRef` does not exist. */
export class ProviderNotFoundError extends DependencyNotFoundError {
  constructor(namespace: string, providerName: string, options?: { cause?: unknown }) {
    super(`Provider ${namespace}/${providerName}`, `cannot read Provider ${namespace}/${providerName} named by spec.providerRef: it does not exist`, options);
    this.name = 'ProviderNotFoundError';
  }
}

/** A CredentialsNotFoundError: the credentials Secret the kind or the Provider names does not exist. */
export class CredentialsNotFoundError extends DependencyNotFoundError {
  constructor(ref: SecretRef, options?: { cause?: unknown }) {
    super(`credentials Secret ${ref.namespace}/${ref.name}`, `cannot read credentials Secret ${ref.namespace}/${ref.name}: it does not exist`, options);
    this.name = 'CredentialsNotFoundError';
  }
}

/** decodeSecretData turns a Secret's base64 `data` into plain strings. */
export function decodeSecretData(secret: KObject): Record<string, string> {
  const out: Record<string, string> = {};
  if (isPlainObject(secret.data)) {
    for (const [k, v] of Object.entries(secret.data)) if (typeof v === 'string') out[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  return out;
}

/** providerSecretRef is the credentials Secret a Provider object names, if any. */
function providerSecretRef(provider: KObject): SecretRef | undefined {
  const spec = isPlainObject(provider.spec) ? provider.spec : {};
  const ref = spec.credentialsSecretRef;
  const namespace = provider.metadata.namespace;
  if (!isPlainObject(ref) || typeof ref.name !== 'string' || ref.name === '' || !namespace) return undefined;
  return { namespace, name: ref.name };
}

/**
 * A ProviderLookup answers from a cache (an informer's store): the Provider, or undefined
 * when the cache does not hold it (then the API is asked, which also says NotFound).
 */
export type ProviderLookup = (namespace: string, name: string) => KObject | undefined;

/**
 * A CredentialsLookup answers from an informer watching the credentials Secret itself (see
 * CredentialSecrets): its decoded data, or undefined when it does not hold it (then the API
 * is asked, which also says NotFound).
 */
export type CredentialsLookup = (ref: SecretRef) => Record<string, string> | undefined;

/**
 * connectContext reads the Provider named `providerName` (in the resource's namespace) —
 * from `cachedProvider` when it holds it — and the credentials Secret — from
 * `cachedCredentials` (an informer on that Secret, so a changed or deleted Secret takes effect
 * with its watch event) when it holds it. It throws an Error saying which object could not be
 * read — a ProviderNotFoundError or CredentialsNotFoundError when that object does not exist.
 */
export async function connectContext<R extends KObject>(
  client: Client,
  kind: ConcreteKind<R>,
  resource: R,
  providerName: string | undefined,
  cachedProvider?: ProviderLookup,
  cachedCredentials?: CredentialsLookup,
): Promise<ConnectContext> {
  const context: ConnectContext = {};
  const namespace = resource.metadata.namespace ?? '';
  if (providerName) {
    try {
      context.provider = cachedProvider?.(namespace, providerName) ?? (await client.get(providerKind.ref, providerName, namespace));
    } catch (err) {
      if (isNotFound(err)) throw new ProviderNotFoundError(namespace, providerName, { cause: err });
      throw new Error(`cannot read Provider ${namespace}/${providerName} named by spec.providerRef: ${errorMessage(err)}`, { cause: err });
    }
  }
  const secretRef = kind.credentialsSecretRef?.(resource) ?? (context.provider ? providerSecretRef(context.provider) : undefined);
  if (secretRef) {
    context.credentials = cachedCredentials?.(secretRef);
    if (context.credentials) return context;
    try {
      const secret = await client.get(builtinRefs.secrets, secretRef.name, secretRef.namespace);
      context.credentials = decodeSecretData(secret);
    } catch (err) {
      if (isNotFound(err)) throw new CredentialsNotFoundError(secretRef, { cause: err });
      throw new Error(`cannot read credentials Secret ${secretRef.namespace}/${secretRef.name}: ${errorMessage(err)}`, { cause: err });
    }
  }
  return context;
}

/**
 * connectRedacted connects the kind's connector with `context` and returns its external
 * client such that no error it throws — nor the connect itself — quotes a value of the
 * credentials Secret (every value of it: which keys a connector reads is its own business).
 * Every path that calls a provider goes through here, so conditions, Events and log lines
 * made from provider errors carry no secret material.
 */
export async function connectRedacted<R extends KObject>(kind: ConcreteKind<R>, resource: R, context: ConnectContext): Promise<ExternalClient<R>> {
  const redactor = new Redactor(Object.values(context.credentials ?? {}));
  try {
    return redactingClient(await kind.connector.connect(resource, context), redactor);
  } catch (err) {
    throw redactor.redactError(err);
  }
}
