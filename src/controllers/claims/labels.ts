/**
 * The labels the provisioner puts on what it creates from a class: which class made it and
 * for which claim. The pool manager and the resizer read the class label back.
 */

/** `<class namespace>.<class name>` of the ResourceClass a resource was provisioned from. */
export const CLASS_LABEL = 'conductor.io/resource-class';
/** The namespace of the claim a resource was provisioned for. */
export const CLAIM_NAMESPACE_LABEL = 'conductor.io/claim-namespace';
/** The name of the claim a resource was provisioned for. */
export const CLAIM_NAME_LABEL = 'conductor.io/claim-name';

/** classLabelValue is the CLASS_LABEL value for the class `namespace`/`name`: `<namespace>.<name>`. */
export function classLabelValue(namespace: string, name: string): string {
  return `${namespace}.${name}`;
}

/** classLabelOf is the CLASS_LABEL value of `resource` (the class it says it was provisioned from), if any. */
export function classLabelOf(resource: { metadata: { labels?: Record<string, string> } }): string | undefined {
  return resource.metadata.labels?.[CLASS_LABEL];
}

/**
 * classOfLabel splits a CLASS_LABEL value into the class's namespace and name (namespaces hold
 * no dots, so the first dot separates them), or undefined when it is not `<namespace>.<name>`.
 */
export function classOfLabel(label: string | undefined): { namespace: string; name: string } | undefined {
  if (!label) return undefined;
  const dot = label.indexOf('.');
  if (dot <= 0 || dot === label.length - 1) return undefined;
  return { namespace: label.slice(0, dot), name: label.slice(dot + 1) };
}
