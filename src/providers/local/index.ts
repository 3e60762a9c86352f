export { localProvider, localKinds, localRefs, instancesDirEnv, instancesDirFor } from './provider.js';
export { createLocalProvider, type LocalProvider, type LocalProviderOptions } from './local-provider.js';
export * from './postgresql/index.js';
export * from './redis/index.js';
export * from './nats/index.js';
export * from './s3/index.js';
export * from './hostpath/index.js';
