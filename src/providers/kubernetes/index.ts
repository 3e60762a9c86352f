export { kubernetesProvider } from './provider.js';
export { createKubernetesProvider, kubernetesObjectConcreteKind, type KubernetesProvider } from './kubernetes-provider.js';
export { KUBERNETES_GROUP, kubernetesObjectKind, kubernetesRefs, type KubernetesObject, type KubernetesObjectSpec } from './kinds.js';
export { targetClusterFrom, CredentialsError, type TargetCluster } from './credentials.js';
export { TargetClient, TargetError, FIELD_MANAGER, type TargetFailure } from './target-client.js';
export { checkTarget } from './check.js';
export { manifestDifferences, describeDifferences, type Difference } from './manifest-subset.js';
export { parseJsonPath, JsonPathError, type JsonPath } from './json-path.js';
