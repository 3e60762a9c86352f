/**
 * Which resource a claim is bound to, as the resource records it: the functions live in
 * apis/common/binding-record.ts, shared with quota accounting (apis/quota, the ClaimQuota
 * admission plugin) so every reader of a binding believes the same record.
 */
export * from '../../apis/common/binding-record.js';
