export {
  localProvider,
  localKinds,
  localRefs,
  createLocalProvider,
  instancesDirEnv,
  instancesDirFor,
  type LocalProvider,
  type LocalProviderOptions,
} from './local-provider.js';
export * from './postgresql/index.js';
export * from './redis/index.js';
export * from './nats/index.js';
export * from './s3/index.js';
export * from './hostpath/index.js';
