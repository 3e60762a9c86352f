/**
 * The OpenAPI schema of apiextensions.k8s.io/v1 CustomResourceDefinition. The user's
 * `openAPIV3Schema` is kept as opaque JSON here (`x-kubernetes-preserve-unknown-fields`);
 * its content is checked by the CRD strategy with the structural-schema rules.
 */
import type { JSONSchemaProps } from '../registry/resource-type.js';
import { resourceSchema } from './object-meta-schema.js';
import { arr, atomicStringList, bool, int32, mapList, obj, str, time } from './schema-builders.js';

function namesSchema(description: string): JSONSchemaProps {
  return obj(
    description,
    {
      plural: str('The plural resource name used in URLs, lower case: /apis/<group>/<version>/<plural>. Must equal the first part of the CRD name.'),
      singular: str('The singular name, lower case; an alias in kubectl and the name shown in output. Defaults to the kind in lower case.'),
      shortNames: atomicStringList('Short aliases for kubectl, lower case, e.g. `kubectl get cm`.', 'A short name.'),
      kind: str('The CamelCase kind of the objects, used in their `kind` field and in manifests.'),
      listKind: str('The kind of a list of these objects. Defaults to the kind followed by "List".'),
      categories: atomicStringList('Groups of resources this one belongs to, for `kubectl get <category>` (e.g. all).', 'A category name, lower case.'),
    },
    { required: ['plural', 'kind'] },
  );
}

function versionSchema(): JSONSchemaProps {
  return obj(
    'One version of the custom resource API.',
    {
      name: str('The version name, e.g. v1 or v1alpha1, served at /apis/<group>/<name>/...'),
      served: bool('Whether this version is served through the REST API.'),
      storage: bool('Whether objects are persisted in this version. Exactly one version must be the storage version.'),
      deprecated: bool('Whether this version is deprecated; responses from it then carry a warning header.'),
      deprecationWarning: str('The warning returned to clients of a deprecated version, instead of the default one. At most 256 characters.'),
      schema: obj('The schema objects of this version are validated, pruned and defaulted with.', {
        openAPIV3Schema: {
          type: 'object',
          description:
            'An OpenAPI v3 schema of the whole object, in the structural form: every field has a type, and unknown fields are pruned unless x-kubernetes-preserve-unknown-fields says otherwise.',
          'x-kubernetes-preserve-unknown-fields': true,
        },
      }),
      subresources: obj('The subresources this version serves.', {
        status: obj(
          'When present (as an empty object), the status subresource is enabled: the main resource ignores status changes, /status ignores everything else, and spec changes bump metadata.generation.',
          {},
        ),
        scale: obj(
          'When present, the scale subresource is enabled, so autoscalers and `kubectl scale` can read and set the replica count.',
          {
            specReplicasPath: str('A JSON path under .spec to the desired replica count, e.g. .spec.replicas.'),
            statusReplicasPath: str('A JSON path under .status to the observed replica count, e.g. .status.replicas.'),
            labelSelectorPath: str('A JSON path under .spec or .status to a label selector in string form, for autoscalers.'),
          },
          { required: ['specReplicasPath', 'statusReplicasPath'] },
        ),
      }),
      additionalPrinterColumns: arr(
        'Extra columns for `kubectl get`, shown between the name and the age.',
        obj(
          'A printer column.',
          {
            name: str('The column heading.'),
            type: str('The OpenAPI type of the values: integer, number, string, boolean or date.'),
            format: str('An optional OpenAPI format refining the type, e.g. int32 or date-time.'),
            description: str('A human-readable description of the column.'),
            priority: int32('The importance of the column: 0 is shown always, higher numbers only in wide output.'),
            jsonPath: str('A simple JSON path, evaluated against each object, giving the value of the column.'),
          },
          { required: ['name', 'type', 'jsonPath'] },
        ),
        { 'x-kubernetes-list-type': 'atomic' },
      ),
      selectableFields: arr(
        'Fields of the objects that field selectors may use, besides metadata.name and metadata.namespace. At most 8.',
        obj(
          'A selectable field.',
          { jsonPath: str('A simple JSON path to a string, integer or boolean field, e.g. .spec.color.') },
          { required: ['jsonPath'] },
        ),
        { 'x-kubernetes-list-type': 'atomic' },
      ),
    },
    { required: ['name', 'served', 'storage'] },
  );
}

function conversionSchema(): JSONSchemaProps {
  return obj(
    'How objects are converted between versions.',
    {
      strategy: str('None (only apiVersion changes; the default) or Webhook (an external service converts).'),
      webhook: obj(
        'The conversion webhook; required when strategy is Webhook.',
        {
          clientConfig: obj('How to reach the webhook: a URL or a service.', {
            url: str('The https URL of the webhook, without user information, query or fragment.'),
            service: obj(
              'A service in the cluster that serves the webhook.',
              {
                namespace: str('The namespace of the service.'),
                name: str('The name of the service.'),
                path: str('The URL path requests are sent to.'),
                port: int32('The port of the service. Defaults to 443.'),
              },
              { required: ['namespace', 'name'] },
            ),
            caBundle: { type: 'string', format: 'byte', description: 'PEM-encoded CA certificates to verify the webhook server, base64-encoded.' },
          }),
          conversionReviewVersions: atomicStringList(
            'The ConversionReview versions the webhook understands, in order of preference; the server uses the first one it knows.',
            'A ConversionReview version, e.g. v1.',
          ),
        },
        { required: ['conversionReviewVersions'] },
      ),
    },
    { required: ['strategy'] },
  );
}

/** A fresh copy of the schema of a CustomResourceDefinition. */
export function crdSchema(): JSONSchemaProps {
  return resourceSchema(
    'A CustomResourceDefinition adds a kind to the API: once it is established, the server serves its objects like those of built-in kinds.',
    {
      spec: obj(
        'The desired definition of the custom resource.',
        {
          group: str('The API group of the resource, a DNS subdomain with at least one dot, e.g. example.com.'),
          names: namesSchema('The names the resource is served under.'),
          scope: str('Whether objects live in a namespace (Namespaced) or in the cluster (Cluster).'),
          versions: arr('The versions of the resource, each with its schema, subresources and columns.', versionSchema(), {
            'x-kubernetes-list-type': 'atomic',
          }),
          conversion: conversionSchema(),
          preserveUnknownFields: bool('Deprecated and must be false: use x-kubernetes-preserve-unknown-fields in the schema to keep unknown fields.'),
        },
        { required: ['group', 'names', 'scope', 'versions'] },
      ),
      status: obj('The observed state of the definition.', {
        conditions: mapList(
          'The latest observations: NamesAccepted, Established, Terminating and others.',
          obj(
            'A condition of the definition.',
            {
              type: str('The kind of condition, e.g. Established.'),
              status: str('Whether the condition holds: True, False or Unknown.'),
              lastTransitionTime: time('When the status last changed.'),
              reason: str('A CamelCase word saying why the condition is in this state.'),
              message: str('A human-readable explanation.'),
            },
            { required: ['type', 'status'] },
          ),
          ['type'],
          false,
        ),
        acceptedNames: namesSchema('The names actually being served; they differ from spec.names while a name conflicts with another resource.'),
        storedVersions: atomicStringList(
          'Every version objects have ever been persisted in. A version may leave this list only after a storage migration rewrote all objects.',
          'A version name.',
        ),
      }),
    },
    ['spec'],
  );
}
