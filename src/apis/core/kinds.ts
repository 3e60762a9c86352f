/**
 * core.conductor.io/v1alpha1 — the administrators' kinds: ResourceClass (docs/design.md 3.3),
 * Provider, ClaimQuota and SchedulerProfile (3.4).
 */
import { s, type Infer } from '../schema/builder.js';
import { defineKind, type ObjectOf } from '../schema/kind.js';
import { capabilities, conditions, labelSelector, localRef, quantities, rebindPolicy } from '../common/fields.js';
import { V1ALPHA1 } from '../well-known.js';

export const CORE_GROUP = 'core.conductor.io';

export const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'] as const;
export type BindingMode = (typeof BINDING_MODES)[number];

/** The concrete resource a class creates on dynamic provisioning. */
export const classTemplate = () =>
  s
    .object({
      apiVersion: s.string({ minLength: 1 }).describe('API version of the concrete kind, e.g. database.local.conductor.io/v1alpha1.'),
      kind: s.string({ minLength: 1 }).describe('The concrete kind, e.g. LocalPostgreSQLInstance.'),
      metadata: s
        .object({
          labels: s.map(s.string()).describe('Labels put on every resource created from the class.').optional(),
          annotations: s.map(s.string()).describe('Annotations put on every resource created from the class.').optional(),
        })
        .describe('Labels and annotations of the created resources.')
        .optional(),
      spec: s.freeform().describe("The concrete spec; the claim's portable fields and requirements override it.").optional(),
    })
    .describe('The concrete resource created on dynamic provisioning.');
export type ClassTemplate = Infer<ReturnType<typeof classTemplate>>;

export const resourceClassKind = defineKind({
  group: CORE_GROUP,
  version: V1ALPHA1,
  kind: 'ResourceClass',
  plural: 'resourceclasses',
  shortNames: ['rclass'],
  description:
    'A ResourceClass publishes a profile of concrete resources that may be provisioned on demand. Its fields sit at the top level; the annotation conductor.io/is-default-class: "true" makes it the default for the kinds it supports.',
  fields: {
    resourceClass: s.string().describe("The profile the class serves; default: the class's name.").optional(),
    capabilities: capabilities().optional(),
    supportedResources: s
      .array(s.string({ pattern: '^[A-Za-z][A-Za-z0-9]*\\.[a-z0-9]+\\.[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' }), { listType: 'set' })
      .describe('The claim kinds served, as Kind.version.group (the kind is matched case-insensitively), e.g. MySQLInstance.v1alpha1.storage.conductor.io.')
      .optional(),
    rebindPolicy: rebindPolicy().withDefault('Delete').optional(),
    bindingMode: s
      .enumOf(BINDING_MODES)
      .withDefault('Immediate')
      .describe(
        'Immediate: provision when the claim is scheduled. WaitForFirstConsumer (when an object annotated conductor.io/consumes names the claim) is accepted but not implemented yet: it behaves as Immediate, and setting it is answered with a warning.',
      )
      .optional(),
    allowedNamespaces: labelSelector()
      .describe(
        "Which claim namespaces (by label) may use the class. When absent: every namespace for a class in conductor-system, only its own namespace for a class elsewhere. What a class provisions lives in conductor-system whatever the class's namespace.",
      )
      .optional(),
    pool: s
      .object({
        minFree: s.integer({ minimum: 0 }).withDefault(0).describe('Unbound resources kept provisioned so claims bind at once.').optional(),
        maxFree: s.integer({ minimum: 0 }).withDefault(0).describe('Unbound resources above this are deleted; 0 is unlimited.').optional(),
        maxInstances: s.integer({ minimum: 0 }).withDefault(0).describe('The most resources the class creates; 0 is unlimited.').optional(),
      })
      .rules({
        rule: '!has(self.minFree) || !has(self.maxFree) || self.maxFree == 0 || self.minFree <= self.maxFree',
        message: 'minFree must not exceed maxFree',
      })
      .describe('A warm pool of provisioned, unbound resources.')
      .optional(),
    providerRef: localRef('Provider the created resources use').optional(),
    template: classTemplate(),
  },
  printerColumns: [
    { name: 'Profile', type: 'string', jsonPath: '.resourceClass', description: 'The profile the class serves.' },
    { name: 'Kind', type: 'string', jsonPath: '.template.kind', description: 'The concrete kind the class creates.' },
    { name: 'Rebind', type: 'string', jsonPath: '.rebindPolicy', description: 'The rebind policy of created resources.' },
    { name: 'Binding', type: 'string', jsonPath: '.bindingMode', priority: 1, description: 'When resources are provisioned.' },
    { name: 'Provider', type: 'string', jsonPath: '.providerRef.name', priority: 1, description: 'The Provider of created resources.' },
  ],
});
export type ResourceClass = ObjectOf<typeof resourceClassKind>;

export const PROVIDER_TYPES = ['local', 'memory', 'kubernetes', 'gcp', 'azure', 'aws'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export const providerKind = defineKind({
  group: CORE_GROUP,
  version: V1ALPHA1,
  kind: 'Provider',
  plural: 'providers',
  shortNames: ['prov'],
  description:
    'A Provider is a place concrete resources are provisioned in, with the credentials to reach it. It is Ready when its type is installed in Conductor and its credentials and dependencies check out (local: the programs its kinds run); Ready=False says what is wrong.',
  fields: {
    spec: s
      .object({
        type: s.enumOf(PROVIDER_TYPES).describe('local, memory, kubernetes, gcp, azure or aws.'),
        credentialsSecretRef: s
          .object({
            name: s.string({ minLength: 1 }).describe('Name of the Secret, in the same namespace; whoever sets it must be allowed to read that Secret.'),
            key: s.string().describe('The key holding the credentials, when the Secret has several.').optional(),
          })
          .describe(
            'The Secret holding the credentials; only administrators can read it, and whoever sets the reference must be allowed to read it. Its values never appear in status, Events or logs.',
          )
          .optional(),
        endpoint: s.string().describe('The API endpoint, e.g. an emulator or an S3-compatible server.').optional(),
        project: s.string().describe('The project or account (gcp project, azure subscription, aws account).').optional(),
        region: s.string().describe('The default region of created resources.').optional(),
        capabilities: capabilities()
          .describe(
            'What this Provider offers the classes placed on it (a class naming no Provider, of a type that places classes across Providers, such as kubernetes): capacity caps what one resource may have, cost and performance are its tiers, region defaults to spec.region. A class states its own to narrow these.',
          )
          .optional(),
      })
      .describe('Where and how to reach the provider.'),
    status: s
      .object({
        conditions: conditions().optional(),
        observedGeneration: s.integer({ minimum: 0, format: 'int64' }).describe('The metadata.generation the status describes.').optional(),
        resources: s.integer({ minimum: 0, format: 'int64' }).describe('How many concrete resources name this Provider in spec.providerRef.').optional(),
        atProvider: s
          .freeform()
          .describe("What the provider's check found, when Ready: e.g. a kubernetes target's server version and what its credentials may do.")
          .optional(),
      })
      .describe('Ready is True when the type is installed and the credentials and dependencies check out; it is checked on every change and periodically.')
      .optional(),
  },
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type', description: 'The provider type.' },
    {
      name: 'Ready',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Ready")].status',
      description: 'Whether the type is installed and the credentials and dependencies check out.',
    },
    { name: 'Resources', type: 'integer', jsonPath: '.status.resources', description: 'Concrete resources naming this Provider.' },
    { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason', priority: 1, description: 'Why it is (not) Ready.' },
    { name: 'Region', type: 'string', jsonPath: '.spec.region', priority: 1, description: 'The default region.' },
  ],
});
export type Provider = ObjectOf<typeof providerKind>;

export const claimQuotaKind = defineKind({
  group: CORE_GROUP,
  version: V1ALPHA1,
  kind: 'ClaimQuota',
  plural: 'claimquotas',
  shortNames: ['cquota'],
  description:
    'A ClaimQuota limits the claims of its namespace: hard keys such as claims, requests.storage, <profile>.claims and cost.monthly. Exceeding it is refused at admission (403 naming the keys).',
  fields: {
    spec: s
      .object({
        hard: quantities('Limits by key, e.g. {claims: 10, requests.storage: 500Gi, performance.claims: 2, cost.monthly: "300"}.'),
      })
      .describe('The limits.'),
    status: s
      .object({
        hard: quantities('The limits being enforced.').optional(),
        used: quantities("What the namespace's claims use, by the same keys.").optional(),
      })
      .describe('The usage observed.')
      .optional(),
  },
});
export type ClaimQuota = ObjectOf<typeof claimQuotaKind>;

/** The filter plugins of the scheduler (docs/design.md 3.5), in the order they run by default. */
export const FILTER_PLUGINS = [
  'KindCompatible',
  'ExplicitName',
  'ProfileMatch',
  'Selector',
  'Phase',
  'Capacity',
  'Region',
  'Cost',
  'Performance',
  'PortableConfig',
  'NamespacePolicy',
  'Quota',
] as const;
/** The score plugins of the scheduler (docs/design.md 3.5). */
export const SCORE_PLUGINS = ['StaticFirst', 'LeastWaste', 'LowestCost', 'Locality', 'Spread', 'BinPack'] as const;

const pluginName = () => s.string({ minLength: 1, pattern: '^[A-Za-z][A-Za-z0-9]*$' });

export const schedulerExtender = () =>
  s.object({
    name: s.string({ minLength: 1 }).describe('Names the extender in explanations.'),
    filterURL: s.string({ pattern: '^https?://' }).describe('POSTed {claim, candidates}; answers {filtered, failed: {name: reason}}.').optional(),
    scoreURL: s.string({ pattern: '^https?://' }).describe('POSTed {claim, candidates}; answers {scores: {name: 0-100}}.').optional(),
    weight: s.integer({ minimum: 0 }).withDefault(1).describe('Weight of its scores.').optional(),
    timeoutSeconds: s.integer({ minimum: 1, maximum: 60 }).withDefault(5).describe('How long a call may take.').optional(),
    ignorable: s.boolean().withDefault(false).describe('When true, a failing extender is skipped instead of failing the decision.').optional(),
  });
export type SchedulerExtender = Infer<ReturnType<typeof schedulerExtender>>;

export const schedulerProfileKind = defineKind({
  group: CORE_GROUP,
  version: V1ALPHA1,
  kind: 'SchedulerProfile',
  plural: 'schedulerprofiles',
  shortNames: ['sprofile'],
  description:
    'A SchedulerProfile configures the claim scheduler: which filters run, score weights, the region hierarchy, the cost and performance tiers, and HTTP extenders. The profile named default in conductor-system is used unless another is chosen.',
  fields: {
    spec: s
      .object({
        plugins: s
          .object({
            filters: s.array(pluginName(), { listType: 'set' }).describe('The filter plugins that run, in order.').optional(),
            scores: s
              .array(
                s.object({
                  name: pluginName().describe('The score plugin.'),
                  weight: s.integer({ minimum: 0, maximum: 100 }).describe('Its weight in the weighted sum; 0 disables it.'),
                }),
                { listType: 'map', mapKeys: ['name'] },
              )
              .describe('The score plugins that run, with their weights.')
              .optional(),
          })
          .describe('Enabled plugins; when absent, every filter and the default weights.')
          .optional(),
        regionHierarchy: s
          .map(s.array(s.string(), { listType: 'set' }))
          .describe('Region groups and what they contain, e.g. {north-america: [us-east-1, us-west-2]}; a group may contain groups.')
          .optional(),
        costTiers: s.array(s.string(), { listType: 'set' }).describe('Cost tiers from cheapest to dearest.').optional(),
        performanceTiers: s.array(s.string(), { listType: 'set' }).describe('Performance tiers from lowest to highest.').optional(),
        extenders: s
          .array(schedulerExtender(), { listType: 'map', mapKeys: ['name'] })
          .describe('Out-of-process filter and score webhooks.')
          .optional(),
      })
      .describe('The scheduler configuration.'),
  },
  printerColumns: [
    { name: 'Cost-Tiers', type: 'string', jsonPath: '.spec.costTiers', priority: 1, description: 'Cost tiers, cheapest first.' },
    { name: 'Performance-Tiers', type: 'string', jsonPath: '.spec.performanceTiers', priority: 1, description: 'Performance tiers, lowest first.' },
  ],
});
export type SchedulerProfile = ObjectOf<typeof schedulerProfileKind>;
export type SchedulerProfileSpec = SchedulerProfile['spec'];

export const coreKinds = [resourceClassKind, providerKind, claimQuotaKind, schedulerProfileKind] as const;

export const coreRefs = {
  resourceclasses: resourceClassKind.ref,
  providers: providerKind.ref,
  claimquotas: claimQuotaKind.ref,
  schedulerprofiles: schedulerProfileKind.ref,
} as const;
