/**
 * The audit log: one JSON line per API request, written asynchronously.
 */
export { AuditLog, DEFAULT_AUDIT_BUFFER_BYTES, type AuditEntry, type AuditLogOptions, type AuditSink } from './audit-log.js';
export { RequestAuditor, type AuditAttributes } from './request-auditor.js';
