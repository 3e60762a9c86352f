// The public surface of src/apiserver/auth: the API server's PKI, the admin kubeconfig and
// request authentication.
export { ensurePki, loadCaKey, pkiPaths, servingNames, tlsServerOptions } from './pki.js';
export type { EnsurePkiOptions, Pki, PkiPaths } from './pki.js';
export { ensureAdminCredentials, ensureAdminToken } from './admin-credentials.js';
export type { AdminCredentials, EnsureAdminOptions } from './admin-credentials.js';
export { issueClientCertificate, issueClientCertificateAsync } from './client-certificates.js';
export type { ClientCertificateOptions, IssuedCertificate } from './client-certificates.js';
export {
  KUBECONFIG_CERT_CONTEXT,
  KUBECONFIG_CERT_USER,
  KUBECONFIG_CLUSTER,
  KUBECONFIG_TOKEN_CONTEXT,
  KUBECONFIG_TOKEN_USER,
  renderKubeconfig,
  serverUrl,
  writeKubeconfig,
} from './kubeconfig.js';
export type { KubeconfigOptions } from './kubeconfig.js';
export { Authenticator, bearerToken, userFromCertificate } from './authenticator.js';
export type { AuthenticatorOptions, PeerCertificate } from './authenticator.js';
export { parseTokenFile } from './token-file.js';
export { ADMIN_USER_NAME, adminUser, AUTHENTICATED_GROUP, MASTERS_GROUP } from './user-info.js';
export type { UserInfo } from './user-info.js';
export { ensureServerCredentials } from './server-credentials.js';
export type { ServerCredentials, ServerCredentialsOptions } from './server-credentials.js';
export { keyIdOf, signJwt, verifyJwt, JWT_ALGORITHM } from './jwt.js';
export type { JwtHeader, JwtVerdict } from './jwt.js';
export { ensureServiceAccountKey, serviceAccountKeyPaths } from './service-account-key.js';
export type { ServiceAccountSigningKey } from './service-account-key.js';
export {
  DEFAULT_SERVICE_ACCOUNT_ISSUER,
  DEFAULT_TOKEN_EXPIRATION_SECONDS,
  MAX_TOKEN_EXPIRATION_SECONDS,
  MIN_TOKEN_EXPIRATION_SECONDS,
  SERVICE_ACCOUNTS_GROUP,
  ServiceAccountTokens,
  looksLikeJwt,
  serviceAccountUser,
  serviceAccountUserName,
} from './service-account-tokens.js';
export type {
  IssueRequest,
  IssuedToken,
  NamedRef,
  ObjectLookup,
  ServiceAccountClaims,
  ServiceAccountTokensOptions,
  TokenVerdict,
} from './service-account-tokens.js';
export { addUser, groupProblem, renderUserKubeconfig, serverUrlFromKubeconfig, userNameProblem, UserInputError } from './user-kubeconfig.js';
export type { AddedUser, AddUserOptions, UserKubeconfigOptions } from './user-kubeconfig.js';
