/**
 * The matcher and configurator of NATSServer for MessageQueue claims. A NATSServer gives a
 * claim a subject prefix on core NATS: messages go to the subscribers connected at the time
 * and nothing is stored, so claims asking for retention or exactly-once FIFO delivery do
 * not fit.
 */
import { deepCopy, isPlainObject, type JsonObject, type KObject } from '../../../machinery/object.js';
import { doesNotFit, fits, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../../spi.js';
import { messageQueueClaimSpec, type NATSServer } from './kinds.js';

/** natsMatcher judges a claim against a NATSServer or a class that would start one. */
export function natsMatcher(binaryVersion: string | undefined) {
  return function matchNatsServer(claim: KObject, candidate: MatchCandidate<NATSServer>): MatchResult {
    const wanted = messageQueueClaimSpec(claim);
    if (wanted.fifo) return doesNotFit('a NATSServer subject delivers at most once, not exactly once in order (fifo)');
    if (wanted.retentionSeconds) return doesNotFit(`a NATSServer subject keeps no messages; retentionSeconds ${wanted.retentionSeconds} cannot be honoured`);
    if (candidate.type === 'class' && !binaryVersion) return doesNotFit('no nats-server on this machine');
    return fits;
  };
}

/** configureNatsServer builds a NATSServer spec from a class template and the claim's requirements. */
export function configureNatsServer(claim: KObject, template: ResourceTemplate): JsonObject {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const requirements = messageQueueClaimSpec(claim).requirements;
  if (requirements) {
    const capabilities: JsonObject = isPlainObject(spec.capabilities) ? deepCopy(spec.capabilities) : {};
    if (isPlainObject(requirements.capacity)) {
      capabilities.capacity = { ...(isPlainObject(capabilities.capacity) ? capabilities.capacity : {}), ...(requirements.capacity as JsonObject) };
    }
    for (const field of ['region', 'cost', 'performance'] as const) {
      const value = requirements[field];
      if (capabilities[field] === undefined && typeof value === 'string') capabilities[field] = value;
    }
    spec.capabilities = capabilities;
  }
  return spec;
}
