/**
 * Why a bound resource is not ready, worded for its claim. Developers cannot read concrete
 * resources, so a failure only the resource shows (its Provider missing, its credentials
 * refused) would leave the claim saying "waiting" forever: the resource's failing condition
 * is carried up — its reason, and its message with anything credential-shaped masked.
 */
import type { Condition, KObject } from '../../machinery/object.js';
import { ClaimReason } from './reasons.js';

/** The longest resource message carried to a claim. */
export const MAX_CARRIED_MESSAGE = 1024;

/** A NotReady is the claim's Ready=False condition (reason, message) and whether it reports a failure (a Warning Event). */
export interface NotReady {
  reason: string;
  message: string;
  failing: boolean;
}

/**
 * maskCredentials hides what looks like a credential in a message: the password of a URI's
 * user info (`scheme://user:***@host`), and the value of `password=`, `password:`,
 * `PASSWORD '…'`, `secret=`, `token=` and the like.
 */
export function maskCredentials(message: string): string {
  return message
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, '$1***@')
    .replace(/\b((?:password|passwd|pwd|secret|token|secretAccessKey|accessKey)\s*[=:]\s*)('[^']*'|"[^"]*"|[^\s,;)]+)/gi, '$1***')
    .replace(/\b(password\s+)('[^']*'|"[^"]*")/gi, '$1***');
}

function describe(resource: KObject): string {
  return `${resource.kind} ${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
}

function conditions(resource: KObject): Condition[] {
  const c = ((resource.status ?? {}) as { conditions?: unknown }).conditions;
  return Array.isArray(c) ? (c as Condition[]) : [];
}

function carried(message: string | undefined): string {
  const m = maskCredentials(message ?? '').trim();
  return m.length > MAX_CARRIED_MESSAGE ? `${m.slice(0, MAX_CARRIED_MESSAGE)}…` : m;
}

/**
 * notReadyReason words a not-ready resource for its claim: a `Synced=False` condition (the
 * managed reconciler's last error) is a failure, carried with its reason; otherwise the
 * claim is waiting, with the resource's `Ready` reason and message when it has them.
 */
export function notReadyReason(resource: KObject): NotReady {
  const conds = conditions(resource);
  const what = describe(resource);
  const synced = conds.find((c) => c.type === 'Synced' && c.status === 'False');
  if (synced) {
    const reason = /^[A-Za-z][A-Za-z0-9_]*$/.test(synced.reason ?? '') ? synced.reason : ClaimReason.ResourceNotReady;
    const message = carried(synced.message);
    return { reason, message: `${what} is not ready: ${reason}${message ? `: ${message}` : ''}`, failing: true };
  }
  const ready = conds.find((c) => c.type === 'Ready' && c.status !== 'True');
  const detail = ready?.reason ? ` (${ready.reason}${ready.message ? `: ${carried(ready.message)}` : ''})` : '';
  return { reason: ClaimReason.Waiting, message: `waiting for ${what} to become ready${detail}`, failing: false };
}
