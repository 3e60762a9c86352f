/**
 * How a provisioned resource states what its claim asked for: every provider's configurator
 * writes a claim's generic requirements over its class template's capabilities the same way.
 */
import { deepCopy, isPlainObject, type JsonObject, type JsonValue } from '../machinery/object.js';

/**
 * capabilitiesWithRequirements returns the template's capabilities (a copy) with the claim's
 * capacity requests written over them, and its region and tiers filling in what the template
 * leaves open: what the template states about region and tiers stays, since it describes
 * where the class provisions.
 */
export function capabilitiesWithRequirements(capabilities: JsonValue | undefined, requirements: Readonly<Record<string, unknown>> | undefined): JsonObject {
  const merged: JsonObject = isPlainObject(capabilities) ? deepCopy(capabilities) : {};
  if (!requirements) return merged;
  if (isPlainObject(requirements.capacity)) {
    const capacity: JsonObject = isPlainObject(merged.capacity) ? merged.capacity : {};
    for (const [dimension, quantity] of Object.entries(requirements.capacity)) {
      if (typeof quantity === 'string' || typeof quantity === 'number') capacity[dimension] = quantity;
    }
    merged.capacity = capacity;
  }
  for (const field of ['region', 'cost', 'performance']) {
    const value = requirements[field];
    if (merged[field] === undefined && typeof value === 'string') merged[field] = value;
  }
  return merged;
}
