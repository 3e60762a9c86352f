/**
 * The 409 Conflict an apply fails with when it would change fields other managers own.
 */
import { ApiError } from '../errors.js';
import type { StatusCause } from '../errors.js';
import type { FieldPath } from './field-path.js';
import { pathToString } from './field-path.js';
import type { FieldsEntry } from './managed-fields.js';
import { describeManager, entryIdentity } from './managed-fields.js';

/** A Conflict is one field an apply would change that another manager owns. */
export interface Conflict {
  manager: Pick<FieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>;
  path: FieldPath;
}

/**
 * conflictError builds the Status Kubernetes returns: one cause per field
 * (`FieldManagerConflict`, `conflict with "mgr" using v1`, `.data.key`) and a message that
 * lists them, grouped by manager when there are several. Conflicts are ordered by manager
 * identity, then as given (the field set's order).
 */
export function conflictError(conflicts: readonly Conflict[]): ApiError {
  const sorted = conflicts
    .map((c, i) => ({ c, i, id: entryIdentity(c.manager) }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.i - b.i))
    .map((x) => x.c);
  const causes: StatusCause[] = sorted.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${describeManager(c.manager)}`,
    field: pathToString(c.path),
  }));
  let message: string;
  if (sorted.length === 1) {
    const only = sorted[0];
    message = `Apply failed with 1 conflict: conflict with ${describeManager(only.manager)}: ${pathToString(only.path)}`;
  } else {
    const lines: string[] = [];
    let last = '';
    for (const c of sorted) {
      const id = entryIdentity(c.manager);
      if (id !== last) lines.push(`conflicts with ${describeManager(c.manager)}:`);
      last = id;
      lines.push(`- ${pathToString(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}
