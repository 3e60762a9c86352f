/** The verbs every built-in kind serves (all of them: nothing is read-only or write-only). */
export const allVerbs: readonly string[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** The verbs served for a built-in kind, as discovery lists them. */
export function verbsFor(_kind: string): string[] {
  return [...allVerbs];
}
