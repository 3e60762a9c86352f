/**
 * A continue token remembers where a paginated list stopped and at which revision, so the
 * next page reads the same snapshot.
 */
import { errors } from '../../machinery/errors.js';

export interface ContinuePosition {
  revision: number;
  /** The last key returned (relative to the list prefix). */
  after: string;
}

export function encodeContinue(pos: ContinuePosition): string {
  return Buffer.from(JSON.stringify({ v: 'conductor/v1', rv: pos.revision, after: pos.after })).toString('base64url');
}

export function decodeContinue(token: string): ContinuePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw errors.badRequest('continue key is not valid: it must be the exact value of metadata.continue from a previous list');
  }
  const p = parsed as { v?: unknown; rv?: unknown; after?: unknown };
  if (p?.v !== 'conductor/v1' || typeof p.rv !== 'number' || typeof p.after !== 'string' || p.after.includes('..')) {
    throw errors.badRequest('continue key is not valid: it must be the exact value of metadata.continue from a previous list');
  }
  return { revision: p.rv, after: p.after };
}
