/**
 * The per-request context every REST handler receives: who is asking, with which client,
 * and a place to collect warnings (sent as `Warning: 299` headers).
 */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
}

export interface RequestContext {
  user: UserInfo;
  userAgent: string;
  warnings: string[];
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
}

export function systemContext(name = 'system:conductor'): RequestContext {
  return { user: { name, groups: ['system:masters', 'system:authenticated'] }, userAgent: 'conductor', warnings: [] };
}
