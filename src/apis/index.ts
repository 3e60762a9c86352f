/**
 * Conductor's API kinds: their TypeScript types, CRDs and ResourceRefs, one folder per API
 * group, plus installing the CRDs and the default SchedulerProfile.
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
export * from './local-database/index.js';
export * from './memory/index.js';
export * from './local-cache/index.js';
export * from './local-messaging/index.js';
export * from './local-storage/index.js';
export * from './local-network/index.js';
export { adminKinds, allCrds, allKinds, apiRefs, claimKinds, concreteKinds, findKind } from './catalog.js';
export { crdNames, implementedClaimKinds, isClaimCrd, parseSupportedResource, supportsKind, type SupportedResource } from './crd-metadata.js';
export { crdEstablished, installCrds, type InstallCrdsOptions, type InstallCrdsResult } from './install.js';
export { crdFileName, crdFiles, crdsYaml, writeCrdFiles } from './manifests.js';
