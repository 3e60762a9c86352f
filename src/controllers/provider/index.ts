/**
 * The Provider controller: each Provider's Ready condition (type installed, credentials and
 * dependencies checked by its provider module) and `status.resources`.
 */
export { ProviderController, type ProviderControllerOptions } from './provider-controller.js';
export { providerReadiness, providerReasons, providerType, type CredentialsLookup } from './readiness.js';
