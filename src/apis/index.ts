/**
 * Conductor's API kinds: the claim and administrators' kinds (their TypeScript types, CRDs and
 * ResourceRefs, one folder per API group), the schema builder and common fields concrete kinds
 * are written with, installing CRDs and the default SchedulerProfile. Concrete kinds live with
 * their providers; the whole catalog is src/conductor/catalog.ts.
 */
export * from './well-known.js';
export { s, NON_NEGATIVE_QUANTITY_PATTERN } from './schema/builder.js';
export type { Field, Infer, InferShape, Shape } from './schema/builder.js';
export { defineKind } from './schema/kind.js';
export type { CrdPrinterColumn, KindDefinition, KindObject, KindOptions, ObjectOf } from './schema/kind.js';
export * from './common/fields.js';
export * from './common/claim.js';
export * from './common/concrete.js';
export * from './storage/index.js';
export * from './cache/index.js';
export * from './messaging/index.js';
export * from './network/index.js';
export * from './core/index.js';
export { adminKinds, apiCrds, apiKinds, apiRefs, claimKinds } from './catalog.js';
export { crdNames, implementedClaimKinds, isClaimCrd, parseSupportedResource, supportsKind, type SupportedResource } from './crd-metadata.js';
export {
  claimKindOfCrd,
  concreteKindOfCrd,
  definesClaimKind,
  definesConcreteKind,
  parseConnectionKeys,
  servedKindOf,
  type ConnectionKey,
  type CrdClaimKind,
  type CrdConcreteKind,
  type CrdKind,
  type CrdReading,
} from './crd-kinds.js';
export { crdEstablished, installCrds, type InstallCrdsOptions, type InstallCrdsResult } from './install.js';
export { crdFileName, crdFiles, crdsYaml, writeCrdFiles } from './manifests.js';
