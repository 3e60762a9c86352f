export * from './spi.js';
export * from './local/index.js';
export * from './memory/index.js';
export * from './sql-claim.js';
export {
  defineProvider,
  defineProviderKind,
  kindNames,
  connectionKeysSentence,
  startedKindProblems,
  ProviderStartError,
  type ClaimKindSupport,
  type ProviderKindOptions,
} from './kind-definition.js';
