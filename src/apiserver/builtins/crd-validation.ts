/**
 * Validation of CustomResourceDefinitions: names, group, scope, versions (with their
 * schemas, subresources, printer columns and selectable fields), conversion, stored
 * versions, and the fields that may not change once the definition is in use. Field
 * paths are those of the v1 object (`spec.versions[0].schema.openAPIV3Schema`).
 *
 * This checks what the CRD's OpenAPI schema cannot express: a field the schema marks as
 * required is reported here only when present but empty, so a missing field is not
 * reported twice.
 */
import type { KObject } from '../../machinery/object.js';
import { deepEqual, isPlainObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import type { JSONSchemaProps, ValidationContext } from '../registry/resource-type.js';
import { validateStructuralSchema } from '../schema/index.js';
import { child, duplicate, forbidden, immutable, index, invalid, key, notSupported, required, tooMany } from './field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain } from './names.js';

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
  return isPlainObject(v) ? v : {};
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * A Required cause for a field the schema already requires: a missing field is reported
 * by the schema's `required`, so only a present but empty value is reported here.
 */
function requiredIfEmpty(value: unknown, p: string, detail = ''): StatusCause[] {
  return value === '' ? [required(p, detail)] : [];
}

/** The scopes a CRD may have. */
export const crdScopes = ['Cluster', 'Namespaced'] as const;
/** The conversion strategies a CRD may use. */
export const conversionStrategies = ['None', 'Webhook'] as const;
/** The ConversionReview versions this server understands. */
export const conversionReviewVersions = ['v1', 'v1beta1'] as const;
/** The most selectable fields one version may declare. */
export const maxSelectableFields = 8;

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const approvalAnnotation = 'api-approved.kubernetes.io';
const approvalLink = 'see https://github.com/kubernetes/enhancements/pull/1111';

/** True when a CRD has the condition `type` with status True. */
export function crdConditionTrue(crd: KObject, type: string): boolean {
  return list(rec(crd.status).conditions).some((c) => rec(c).type === type && rec(c).status === 'True');
}

/** The name of the storage version (the first one marked, if several are). */
export function storageVersionOf(crd: KObject): string | undefined {
  for (const v of list(rec(crd.spec).versions)) if (rec(v).storage === true) return text(rec(v).name);
  return undefined;
}

/** Problems with the names of a CRD (`spec.names` or `status.acceptedNames`); empty names are checked elsewhere. */
export function validateCrdNames(names: unknown, p: string): StatusCause[] {
  const n = rec(names);
  const causes: StatusCause[] = [];
  for (const f of ['plural', 'singular'] as const) {
    const v = text(n[f]);
    const errs = isDNS1035Label(v);
    if (v !== '' && errs.length) causes.push(invalid(child(p, f), v, errs.join(',')));
  }
  for (const f of ['kind', 'listKind'] as const) {
    const v = text(n[f]);
    const errs = isDNS1035Label(v.toLowerCase());
    if (v !== '' && errs.length) causes.push(invalid(child(p, f), v, `may have mixed case, but should otherwise match: ${errs.join(',')}`));
  }
  list(n.shortNames).forEach((s, i) => {
    const errs = isDNS1035Label(text(s));
    if (errs.length) causes.push(invalid(index(child(p, 'shortNames'), i), s, errs.join(',')));
  });
  const kind = text(n.kind);
  if (kind !== '' && kind === text(n.listKind)) causes.push(invalid(child(p, 'listKind'), kind, 'kind and listKind may not be the same'));
  list(n.categories).forEach((c, i) => {
    const errs = isDNS1035Label(text(c));
    if (errs.length) causes.push(invalid(index(child(p, 'categories'), i), c, errs.join(',')));
  });
  return causes;
}

function validateSimpleJsonPath(path: string, p: string): StatusCause[] {
  if (path === '') return [invalid(p, path, 'must not be empty')];
  if (!path.startsWith('.')) return [invalid(p, path, 'must be a simple json path starting with .')];
  return [];
}

function validateScale(scale: unknown, p: string): StatusCause[] {
  if (!isPlainObject(scale)) return [];
  const causes: StatusCause[] = [];
  const check = (field: string, prefixes: string[], under: string, needed: boolean) => {
    const fp = child(p, field);
    const v = text(scale[field]);
    if (v === '') {
      if (needed) causes.push(...requiredIfEmpty(scale[field], fp));
      return;
    }
    const errs = validateSimpleJsonPath(v, fp);
    if (errs.length) causes.push(...errs);
    else if (!prefixes.some((pre) => v.startsWith(pre))) causes.push(invalid(fp, v, `should be a json path under ${under}`));
  };
  check('specReplicasPath', ['.spec.'], '.spec', true);
  check('statusReplicasPath', ['.status.'], '.status', true);
  check('labelSelectorPath', ['.spec.', '.status.'], 'either .spec or .status', false);
  return causes;
}

function validatePrinterColumn(col: unknown, p: string): StatusCause[] {
  const c = rec(col);
  const causes: StatusCause[] = [];
  causes.push(...requiredIfEmpty(c.name, child(p, 'name')));
  const type = text(c.type);
  const typeMsg = `must be one of ${printerColumnTypes.join(',')}`;
  if (type === '') causes.push(...requiredIfEmpty(c.type, child(p, 'type'), typeMsg));
  else if (!printerColumnTypes.includes(type)) causes.push(invalid(child(p, 'type'), type, typeMsg));
  const format = text(c.format);
  if (format !== '' && !printerColumnFormats.includes(format)) {
    causes.push(invalid(child(p, 'format'), format, `must be one of ${printerColumnFormats.join(',')}`));
  }
  const jsonPath = text(c.jsonPath);
  if (jsonPath === '') causes.push(...requiredIfEmpty(c.jsonPath, child(p, 'jsonPath')));
  else causes.push(...validateSimpleJsonPath(jsonPath, child(p, 'jsonPath')));
  return causes;
}

/** The schema a dotted path (`.spec.color`) leads to, or undefined when it leads nowhere. */
function resolvePath(schema: JSONSchemaProps, path: string): JSONSchemaProps | undefined {
  if (!path.startsWith('.') || path === '.') return undefined;
  let cur: JSONSchemaProps | undefined = schema;
  for (const seg of path.slice(1).split('.')) {
    if (!cur || seg === '') return undefined;
    const props: Record<string, JSONSchemaProps> | undefined = isPlainObject(cur.properties) ? cur.properties : undefined;
    if (props && Object.prototype.hasOwnProperty.call(props, seg)) cur = props[seg];
    else if (isPlainObject(cur.additionalProperties)) cur = cur.additionalProperties;
    else return undefined;
  }
  return cur;
}

function validateSelectableFields(fields: unknown[], schema: unknown, p: string): StatusCause[] {
  if (!isPlainObject(schema)) {
    return [invalid(p, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included')];
  }
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const fp = child(index(p, i), 'jsonPath');
    const path = text(rec(f).jsonPath);
    if (path === '') {
      causes.push(...requiredIfEmpty(rec(f).jsonPath, fp));
      return;
    }
    if (path === '.metadata' || path.startsWith('.metadata.')) {
      causes.push(invalid(fp, path, 'must not point to fields in metadata'));
      return;
    }
    const target = resolvePath(schema, path);
    if (!target) {
      causes.push(invalid(fp, path, 'is an invalid path: does not refer to a valid field'));
      return;
    }
    if (target.type !== 'string' && target.type !== 'boolean' && target.type !== 'integer') {
      causes.push(invalid(fp, path, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (seen.has(path)) causes.push(duplicate(fp, path));
    seen.add(path);
  });
  if (seen.size > maxSelectableFields) causes.push(tooMany(p, seen.size, maxSelectableFields));
  return causes;
}

function validateDeprecationWarning(v: Rec, p: string): StatusCause[] {
  if (v.deprecationWarning === undefined || v.deprecationWarning === null) return [];
  const w = text(v.deprecationWarning);
  if (v.deprecated !== true) return [invalid(p, w, 'can only be set for deprecated versions')];
  const causes: StatusCause[] = [];
  if (w.length > 256) causes.push(invalid(p, w, 'must be <= 256 characters long'));
  if (w.length === 0) causes.push(invalid(p, w, 'must not be an empty string'));
  // eslint-disable-next-line no-control-regex
  const bad = w.search(/[\u0000-\u001f\u007f-\u009f]/);
  if (bad >= 0) causes.push(invalid(p, w, `must only contain printable UTF-8 characters; control character found at index ${bad}`));
  return causes;
}

function validateVersion(v: Rec, p: string): StatusCause[] {
  const causes: StatusCause[] = [];
  causes.push(...validateDeprecationWarning(v, child(p, 'deprecationWarning')));
  const schema = rec(v.schema).openAPIV3Schema;
  if (isPlainObject(schema)) causes.push(...validateStructuralSchema(schema, child(p, 'schema', 'openAPIV3Schema')));
  causes.push(...validateScale(rec(v.subresources).scale, child(p, 'subresources', 'scale')));
  list(v.additionalPrinterColumns).forEach((c, i) => causes.push(...validatePrinterColumn(c, index(child(p, 'additionalPrinterColumns'), i))));
  const selectable = list(v.selectableFields);
  if (selectable.length > 0) causes.push(...validateSelectableFields(selectable, schema, child(p, 'selectableFields')));
  return causes;
}

function validateWebhookUrl(url: string, p: string): StatusCause[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [invalid(p, url, 'must be a valid URL')];
  }
  const causes: StatusCause[] = [];
  if (u.protocol !== 'https:') causes.push(invalid(p, url, "'https' is the only allowed URL scheme"));
  if (u.hostname === '') causes.push(invalid(p, url, 'host must be specified'));
  if (u.username || u.password) causes.push(invalid(p, url, 'user information is not permitted in the URL'));
  if (u.hash || url.includes('#')) causes.push(invalid(p, url, 'fragments are not permitted in the URL'));
  if (u.search) causes.push(invalid(p, url, 'query parameters are not permitted in the URL'));
  return causes;
}

function validateWebhookService(svc: Rec, p: string): StatusCause[] {
  const causes: StatusCause[] = [];
  causes.push(...requiredIfEmpty(svc.name, child(p, 'name'), 'service name is required'));
  causes.push(...requiredIfEmpty(svc.namespace, child(p, 'namespace'), 'service namespace is required'));
  const port = svc.port;
  if (typeof port === 'number' && (!Number.isInteger(port) || port < 1 || port > 65535)) {
    causes.push(invalid(child(p, 'port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  const path = svc.path;
  if (typeof path === 'string' && path !== '' && !path.startsWith('/')) causes.push(invalid(child(p, 'path'), path, "must start with a '/'"));
  return causes;
}

function validateConversion(conversion: unknown, preserveUnknownFields: boolean, p: string): StatusCause[] {
  if (conversion === undefined || conversion === null) return [];
  const c = rec(conversion);
  const causes: StatusCause[] = [];
  const strategy = text(c.strategy);
  if (strategy === '') causes.push(...requiredIfEmpty(c.strategy, child(p, 'strategy')));
  else if (!(conversionStrategies as readonly string[]).includes(strategy)) causes.push(notSupported(child(p, 'strategy'), strategy, conversionStrategies));
  if (strategy !== '' && strategy !== 'None' && preserveUnknownFields) {
    causes.push(invalid(child(p, 'strategy'), strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  const webhookPath = child(p, 'webhook');
  if (strategy === 'Webhook') {
    if (!isPlainObject(c.webhook)) {
      causes.push(required(webhookPath, 'required when strategy is set to Webhook'));
      return causes;
    }
    const cc = c.webhook.clientConfig;
    const ccPath = child(webhookPath, 'clientConfig');
    if (!isPlainObject(cc)) {
      causes.push(required(ccPath, 'required when strategy is set to Webhook'));
    } else {
      const hasUrl = typeof cc.url === 'string' && cc.url !== '';
      const hasService = isPlainObject(cc.service);
      if (hasUrl === hasService) causes.push(required(ccPath, 'exactly one of url or service is required'));
      else if (hasUrl) causes.push(...validateWebhookUrl(cc.url as string, child(ccPath, 'url')));
      else causes.push(...validateWebhookService(cc.service as Rec, child(ccPath, 'service')));
    }
    const versionsPath = child(webhookPath, 'conversionReviewVersions');
    const versions = list(c.webhook.conversionReviewVersions);
    if (versions.length === 0) {
      if (c.webhook.conversionReviewVersions !== undefined) causes.push(required(versionsPath));
    } else {
      const seen = new Set<string>();
      versions.forEach((v, i) => {
        const s = text(v);
        if (seen.has(s)) {
          causes.push(invalid(index(versionsPath, i), s, 'duplicate version'));
          return;
        }
        seen.add(s);
        for (const m of isDNS1035Label(s)) causes.push(invalid(index(versionsPath, i), s, m));
      });
      if (![...seen].some((s) => (conversionReviewVersions as readonly string[]).includes(s))) {
        causes.push(invalid(versionsPath, versions, `must include at least one of ${conversionReviewVersions.join(', ')}`));
      }
    }
  } else if (c.webhook !== undefined && c.webhook !== null) {
    causes.push(forbidden(webhookPath, 'should not be set when strategy is not set to Webhook'));
  }
  return causes;
}

function allVersionsHaveSchemas(spec: Rec): boolean {
  return list(spec.versions).every((v) => isPlainObject(rec(rec(v).schema).openAPIV3Schema));
}

function validateSpec(crd: KObject, old: KObject | undefined): StatusCause[] {
  const spec = rec(crd.spec);
  const causes: StatusCause[] = [];

  const group = text(spec.group);
  if (group === '') causes.push(...requiredIfEmpty(spec.group, 'spec.group'));
  else {
    const errs = isDNS1123Subdomain(group);
    if (errs.length) causes.push(invalid('spec.group', group, errs.join(',')));
    else if (!group.includes('.')) causes.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }

  const scope = text(spec.scope);
  if (scope === '') causes.push(...requiredIfEmpty(spec.scope, 'spec.scope'));
  else if (!(crdScopes as readonly string[]).includes(scope)) causes.push(notSupported('spec.scope', scope, crdScopes));

  // Schemas are required, unless an existing definition already lacked one (no tightening on update).
  const requireSchemas = !old || allVersionsHaveSchemas(rec(old.spec));
  const versions = list(spec.versions);
  const names: string[] = [];
  let storageCount = 0;
  versions.forEach((raw, i) => {
    const v = rec(raw);
    const p = index('spec.versions', i);
    const name = text(v.name);
    names.push(name);
    if (v.storage === true) storageCount++;
    const errs = isDNS1035Label(name);
    if (v.name !== undefined && errs.length) causes.push(invalid(child(p, 'name'), name, errs.join(',')));
    if (requireSchemas && !isPlainObject(rec(v.schema).openAPIV3Schema)) {
      causes.push(required(child(p, 'schema', 'openAPIV3Schema'), 'schemas are required'));
    }
    causes.push(...validateVersion(v, p));
  });
  if (new Set(names).size !== names.length) causes.push(invalid('spec.versions', names, 'must contain unique version names'));
  if (storageCount !== 1) causes.push(invalid('spec.versions', names, 'must have exactly one version marked as storage version'));

  const n = rec(spec.names);
  // plural and kind are required by the schema; singular and listKind are defaulted from kind.
  for (const f of ['plural', 'kind']) causes.push(...requiredIfEmpty(n[f], child('spec.names', f)));
  for (const f of ['singular', 'listKind']) if (text(n[f]) === '') causes.push(required(child('spec.names', f)));
  causes.push(...validateCrdNames(n, 'spec.names'));

  const preserve = spec.preserveUnknownFields === true;
  causes.push(...validateConversion(spec.conversion, preserve, 'spec.conversion'));
  const oldPreserve = old !== undefined && rec(old.spec).preserveUnknownFields === true;
  if (preserve && !oldPreserve) {
    causes.push(
      invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'),
    );
  }
  return causes;
}

/** Problems with status.storedVersions: not empty, includes the storage version, names only existing versions. */
export function validateStoredVersions(crd: KObject): StatusCause[] {
  const p = 'status.storedVersions';
  const stored = list(rec(crd.status).storedVersions).map(text);
  if (stored.length === 0) return [invalid(p, stored, 'must have at least one stored version')];
  const causes: StatusCause[] = [];
  const remaining = new Map(stored.map((s, i) => [s, i] as const));
  for (const raw of list(rec(crd.spec).versions)) {
    const v = rec(raw);
    const name = text(v.name);
    if (v.storage === true && !stored.includes(name)) {
      causes.push(invalid(p, stored, `must have the storage version ${name}`));
    }
    remaining.delete(name);
  }
  for (const [v, i] of remaining) {
    causes.push(
      invalid(
        index(p, i),
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return causes;
}

type Approval = 'approved' | 'bypassed' | 'missing' | 'invalid';

function approvalState(crd: KObject): Approval {
  const ann = rec(crd.metadata.annotations);
  const value = ann[approvalAnnotation];
  if (typeof value !== 'string' || value === '') return 'missing';
  if (value.startsWith('unapproved')) return 'bypassed';
  try {
    const u = new URL(value);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname ? 'approved' : 'invalid';
  } catch {
    return 'invalid';
  }
}

/** True for the groups owned by the Kubernetes project, which need an API review annotation. */
export function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group === 'kubernetes.io' || group.endsWith('.k8s.io') || group.endsWith('.kubernetes.io');
}

function validateApiApproval(crd: KObject, old: KObject | undefined): StatusCause[] {
  if (!isProtectedGroup(text(rec(crd.spec).group))) return [];
  const state = approvalState(crd);
  if (old && approvalState(old) === state) return [];
  const p = key('metadata.annotations', approvalAnnotation);
  if (state === 'missing') return [required(p, `protected groups must have approval annotation "${approvalAnnotation}", ${approvalLink}`)];
  if (state === 'invalid') {
    return [
      invalid(
        p,
        rec(crd.metadata.annotations)[approvalAnnotation],
        `protected groups must have approval annotation "${approvalAnnotation}" with either a URL or a reason starting with "unapproved", ${approvalLink}`,
      ),
    ];
  }
  return [];
}

function validateSpecUpdate(crd: KObject, old: KObject): StatusCause[] {
  const spec = rec(crd.spec);
  const oldSpec = rec(old.spec);
  const causes: StatusCause[] = [];
  if (crdConditionTrue(old, 'Established')) {
    // Once served, the scope and kind are part of how objects are stored.
    if (!deepEqual(spec.scope, oldSpec.scope)) causes.push(immutable('spec.scope', spec.scope ?? ''));
    if (!deepEqual(rec(spec.names).kind, rec(oldSpec.names).kind)) causes.push(immutable('spec.names.kind', rec(spec.names).kind ?? ''));
  }
  // group and plural make up the name of the definition, which never changes.
  if (!deepEqual(spec.group, oldSpec.group)) causes.push(immutable('spec.group', spec.group ?? ''));
  if (!deepEqual(rec(spec.names).plural, rec(oldSpec.names).plural)) causes.push(immutable('spec.names.plural', rec(spec.names).plural ?? ''));
  return causes;
}

/** Problems with a CustomResourceDefinition (its metadata is checked by the caller). */
export function validateCrd(crd: KObject, ctx: ValidationContext): StatusCause[] {
  const statusNames = () => validateCrdNames(rec(crd.status).acceptedNames, 'status.acceptedNames');
  if (ctx.subresource === 'status') return statusNames();
  const old = ctx.operation === 'update' ? ctx.old : undefined;
  const causes: StatusCause[] = [];
  const spec = rec(crd.spec);
  const name = crd.metadata.name ?? '';
  if (name !== `${text(rec(spec.names).plural)}.${text(spec.group)}`) {
    causes.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  causes.push(...validateSpec(crd, old));
  if (old) causes.push(...validateSpecUpdate(crd, old));
  causes.push(...statusNames());
  causes.push(...validateStoredVersions(crd));
  causes.push(...validateApiApproval(crd, old));
  return causes;
}
