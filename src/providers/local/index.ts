export { createLocalProvider, instancesDirEnv, type LocalProvider, type LocalProviderOptions } from './local-provider.js';
export * from './postgresql/index.js';
