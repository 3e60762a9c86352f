/**
 * Field definitions shared by several kinds: object references, label selectors,
 * conditions, and the generic capability/requirement vocabulary the scheduler matches.
 */
import { s, type Infer } from '../schema/builder.js';
import { HOST_PORT_EXPECTED, HOST_PORT_MAX_LENGTH, HOST_PORT_PATTERN, LINK_LOCAL_OR_METADATA_PATTERN } from '../../machinery/validation/host-port.js';

/** A LocalObjectReference: an object in the same namespace, by name. */
export const localRef = (what: string) =>
  s.object({ name: s.string({ minLength: 1 }).describe(`Name of the ${what}.`) }).describe(`A reference to the ${what} (same namespace).`);
export type LocalRef = Infer<ReturnType<typeof localRef>>;

/** A full reference to one object, with the uid of the object it was made to. */
export const objectRef = (what: string) =>
  s
    .object({
      apiVersion: s.string().describe(`API version of the ${what}.`),
      kind: s.string().describe(`Kind of the ${what}.`),
      namespace: s.string().describe(`Namespace of the ${what}.`).optional(),
      name: s.string({ minLength: 1 }).describe(`Name of the ${what}.`),
      uid: s.string().describe(`UID of the ${what}; a reference whose uid differs from the object's is stale.`).optional(),
    })
    .describe(`A reference to the ${what}.`);
export type ObjectReference = Infer<ReturnType<typeof objectRef>>;

/** A reference to a namespaced object by namespace and name. */
export const namespacedRef = (what: string) =>
  s
    .object({
      namespace: s.string().describe(`Namespace of the ${what}.`),
      name: s.string({ minLength: 1 }).describe(`Name of the ${what}.`),
    })
    .describe(`A reference to the ${what}.`);
export type NamespacedRef = Infer<ReturnType<typeof namespacedRef>>;

/** A metav1.LabelSelector. */
export const labelSelector = () =>
  s.object(
    {
      matchLabels: s.map(s.string()).describe('Labels that must all be present with these values.').optional(),
      matchExpressions: s
        .array(
          s.object({
            key: s.string().describe('The label key the requirement applies to.'),
            operator: s.enumOf(['In', 'NotIn', 'Exists', 'DoesNotExist']).describe('How the key relates to the values.'),
            values: s.array(s.string(), { listType: 'atomic' }).describe('Values for In and NotIn (non-empty); empty for Exists and DoesNotExist.').optional(),
          }),
          { listType: 'atomic' },
        )
        .describe('Requirements that must all hold.')
        .optional(),
    },
    { mapType: 'atomic' },
  );
export type LabelSelector = Infer<ReturnType<typeof labelSelector>>;

/** The condition types, reasons and messages follow metav1.Condition. */
export const condition = () =>
  s.object({
    type: s
      .string({ maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' })
      .describe('Type of the condition in CamelCase, e.g. Ready.'),
    status: s.enumOf(['True', 'False', 'Unknown']).describe('Whether the condition holds.'),
    reason: s
      .string({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' })
      .describe('Why the condition last changed, in CamelCase.'),
    message: s.string({ maxLength: 32768 }).describe('A human-readable explanation.'),
    lastTransitionTime: s.dateTime().describe('When the status last changed.'),
    observedGeneration: s.integer({ minimum: 0, format: 'int64' }).describe('The metadata.generation the condition was computed from.').optional(),
  });

/** The `conditions` list of a status: one entry per type (a list map keyed by type). */
export const conditions = () =>
  s.array(condition(), { listType: 'map', mapKeys: ['type'] }).describe("The latest observations of the object's state, one per type.");
export type ConditionEntry = Infer<ReturnType<typeof condition>>;

/** A map of resource names (`storage`, `memory`, ...) to non-negative quantities. */
export const quantities = (what: string) => s.map(s.quantity()).describe(`${what} ${QUANTITY_NOTE}`);

/** What every map of quantities says of its values (kubectl explain shows it). */
export const QUANTITY_NOTE =
  'Each amount is a quantity: a number with an optional suffix (Ki, Mi, Gi, Ti; k, M, G, T; m for thousandths), e.g. 25Gi, 500m or 2.';
export type Quantities = Record<string, string | number>;

/** The generic placement vocabulary shared by requirements, capabilities and classes. */
const placementFields = (capacity: string) => ({
  capacity: quantities(capacity).optional(),
  region: s.string().describe('A region or a region group of the hierarchy in the scheduler profile, e.g. north-america or us-east-1.').optional(),
  cost: s.string().describe('A cost tier of the scheduler profile, e.g. free-tier.').optional(),
  performance: s.string().describe('A performance tier of the scheduler profile, e.g. standard.').optional(),
});

/** What a claim asks for, in generic terms the scheduler matches. */
export const requirements = () =>
  s
    .object({ ...placementFields('Amounts the claim needs, e.g. {storage: 25Gi}.'), maxMonthlyPrice: maxMonthlyPrice().optional() })
    .describe('Generic requirements the scheduler matches against capabilities.');

/** How a monthly price limit is written (the scheduler's parseMoney reads the same). */
export const MONTHLY_PRICE_PATTERN = '^[0-9]{1,9}([.][0-9]{1,2})? ?([A-Z]{3})?$';

/** A claim's price limit: the most a candidate may cost a month for it, in one currency. */
const maxMonthlyPrice = () =>
  s
    .string({ maxLength: 16 })
    .rules({
      rule: `self.matches(${JSON.stringify(MONTHLY_PRICE_PATTERN)})`,
      message: 'must be an amount with at most two decimals and an optional ISO 4217 currency, e.g. "50", "12.50" or "40 EUR" (USD when none)',
    })
    .describe(
      'The most a candidate may cost a month for this claim, e.g. "50" or "40 EUR" (USD when no currency is named). The scheduler compares it with each class\'s and resource\'s monthly price for the size asked (the class annotation conductor.io/monthly-cost, else the price table of its kind) in the same currency only; candidates with no price, or priced in another currency, do not fit.',
    );
export type Requirements = Infer<ReturnType<typeof requirements>>;

/** What a concrete resource or a class offers, in the same terms. */
export const capabilities = () =>
  s.object(placementFields('Amounts the resource offers, e.g. {storage: 50Gi}.')).describe("Generic capabilities matched against claims' requirements.");
export type Capabilities = Infer<ReturnType<typeof capabilities>>;

/** What happens to a concrete resource when its claim lets it go. */
export const REBIND_POLICIES = ['Retain', 'Delete', 'Recycle'] as const;
export type RebindPolicy = (typeof REBIND_POLICIES)[number];
export const rebindPolicy = () =>
  s
    .enumOf(REBIND_POLICIES)
    .describe(
      "What happens when the claim is deleted, and when the resource itself is deleted. Retain: the resource becomes Released and is never rebound; deleting it removes only the object, and the external resource and its data stay for an administrator to recover or remove. Delete: the resource is deleted with its claim, and with it the external resource and its data. Recycle: the data is scrubbed and the resource is Available again; deleting the resource deletes the external resource. Shared resources apply it to each claim's share. A resource is not deleted while a claim uses it: its deletion waits until every claim has released it.",
    );

/**
 * A backend's `host:port` (machinery/validation/host-port): a DNS hostname, an IPv4 address or
 * an IPv6 address in brackets, and a port from 1 to 65535 — nothing a generated config could
 * read as anything else (no `unix@`, `#`, quotes, whitespace). Checked by a CEL rule rather
 * than a bare `pattern` so the 422 says what is expected instead of quoting the regex.
 * `forTenants` adds the rule that refuses link-local and cloud metadata addresses.
 */
export const targetAddress = (forTenants: boolean) => {
  const rules = [{ rule: `self.matches(${JSON.stringify(HOST_PORT_PATTERN)})`, message: `must be ${HOST_PORT_EXPECTED}` }];
  if (forTenants) {
    rules.push({
      rule: `!self.lowerAscii().matches(${JSON.stringify(LINK_LOCAL_OR_METADATA_PATTERN)})`,
      message:
        'must not be a link-local address (169.254.0.0/16, fe80::/10) or a cloud metadata endpoint; only a ResourceClass template with allowLinkLocalTargets may name one',
    });
  }
  return s.string({ maxLength: HOST_PORT_MAX_LENGTH }).rules(...rules);
};
