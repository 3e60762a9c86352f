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

/** The class a CLASS_LABEL value names, or undefined when the value is not `<namespace>.<name>`. */
export function classOfLabel(label: string | undefined): { namespace: string; name: string } | undefined {
  if (!label) return undefined;
  const dot = label.indexOf('.');
  return { namespace: label.slice(0, dot), name: label.slice(dot + 1) };
}
