/**
 * ResourceTypes of the authorization.k8s.io/v1 reviews, so discovery and OpenAPI list them
 * (create only; the dispatcher serves them through CreateEndpoints, never the store).
 */
import type { JSONSchemaProps, ResourceType } from '../registry/resource-type.js';
import { AUTHORIZATION_GROUP, AUTHORIZATION_VERSION, reviewKinds } from './access-reviews.js';

const s = (description: string): JSONSchemaProps => ({ type: 'string', description });
const list = (description: string): JSONSchemaProps => ({ type: 'array', description, items: { type: 'string' } });

function resourceAttributes(): JSONSchemaProps {
  return {
    type: 'object',
    description: 'The resource request asked about.',
    properties: {
      namespace: s('The namespace; "" means all namespaces for namespaced resources and the cluster for cluster-scoped ones.'),
      verb: s('The verb, e.g. get, list, create; "*" means all.'),
      group: s('The API group; "*" means all.'),
      version: s('The API version; "*" means all.'),
      resource: s('The resource; "*" means all.'),
      subresource: s('The subresource; "" means none.'),
      name: s('The object name; "" means all.'),
    },
  };
}

function nonResourceAttributes(): JSONSchemaProps {
  return {
    type: 'object',
    description: 'The non-resource request asked about.',
    properties: { path: s('The URL path.'), verb: s('The HTTP verb, lower case.') },
  };
}

function status(rules: boolean): JSONSchemaProps {
  if (rules) {
    const rule = (urls: boolean): JSONSchemaProps => ({
      type: 'object',
      description: urls ? 'Verbs on non-resource URLs.' : 'Verbs on resources.',
      properties: urls
        ? { verbs: list('The verbs.'), nonResourceURLs: list('The URL paths.') }
        : { verbs: list('The verbs.'), apiGroups: list('The API groups.'), resources: list('The resources.'), resourceNames: list('The object names.') },
    });
    return {
      type: 'object',
      description: 'Filled in by the server: the rules the user holds.',
      properties: {
        resourceRules: { type: 'array', description: 'Rules on resources.', items: rule(false) },
        nonResourceRules: { type: 'array', description: 'Rules on non-resource URLs.', items: rule(true) },
        incomplete: { type: 'boolean', description: 'True when the list may miss rules.' },
        evaluationError: s('Why the list may be incomplete.'),
      },
    };
  }
  return {
    type: 'object',
    description: 'Filled in by the server: the decision.',
    properties: {
      allowed: { type: 'boolean', description: 'Whether the action is allowed.' },
      denied: { type: 'boolean', description: 'Whether the action is explicitly denied.' },
      reason: s('Why.'),
      evaluationError: s('An error met while deciding.'),
    },
  };
}

function spec(kind: string): JSONSchemaProps {
  if (kind === 'SelfSubjectRulesReview') {
    return { type: 'object', description: 'Which namespace to list rules in.', properties: { namespace: s('The namespace.') } };
  }
  const props: Record<string, JSONSchemaProps> = { resourceAttributes: resourceAttributes(), nonResourceAttributes: nonResourceAttributes() };
  if (kind !== 'SelfSubjectAccessReview') {
    props.user = s('The user asked about.');
    props.groups = list('The groups of the user asked about.');
    props.uid = s('The uid of the user asked about.');
    props.extra = { type: 'object', description: 'Extra attributes of the user.', additionalProperties: { type: 'array', items: { type: 'string' } } };
  }
  return { type: 'object', description: 'What is asked about: exactly one of resourceAttributes and nonResourceAttributes.', properties: props };
}

function reviewType(resource: keyof typeof reviewKinds): ResourceType {
  const kind = reviewKinds[resource];
  return {
    group: AUTHORIZATION_GROUP,
    version: AUTHORIZATION_VERSION,
    kind,
    listKind: `${kind}List`,
    resource,
    singular: kind.toLowerCase(),
    shortNames: [],
    categories: [],
    namespaced: resource === 'localsubjectaccessreviews',
    subresources: { status: false },
    verbs: ['create'],
    schema: {
      type: 'object',
      description: `A ${kind} asks the server's authorizer a question; the answer is in status. Nothing is stored.`,
      properties: {
        apiVersion: s('The versioned schema of this representation of an object.'),
        kind: s('The REST resource this object represents.'),
        metadata: { type: 'object', description: 'Standard object metadata.', 'x-kubernetes-preserve-unknown-fields': true },
        spec: spec(kind),
        status: status(kind === 'SelfSubjectRulesReview'),
      },
    },
    printerColumns: [],
    tracksGeneration: false,
    structural: false,
    strategy: {},
    source: { type: 'builtin' },
  };
}

/** The ResourceTypes of the authorization.k8s.io/v1 reviews. */
export function authorizationResourceTypes(): ResourceType[] {
  return (Object.keys(reviewKinds) as Array<keyof typeof reviewKinds>).map(reviewType);
}
