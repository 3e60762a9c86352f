/**
 * The errors every patch applier throws. A patch that is not shaped like its format asks
 * is malformed (400 BadRequest); a well-formed patch that cannot be applied to this object
 * (missing path, failed `test`, wrong list element types) is unprocessable (422 Invalid).
 */
import { ApiError, errors, isApiError } from '../errors.js';

/** The prefix Kubernetes puts on 422 answers to patches it cannot apply. */
export const UNPROCESSABLE_PATCH_PREFIX = 'the server rejected our request due to an error in our request';

/** A 400 for a patch whose shape is wrong; `message` says what was expected. */
export function malformedPatch(message: string): ApiError {
  return errors.badRequest(message);
}

/** A 422 for a well-formed patch that cannot be applied; `detail` says what failed. */
export function unprocessablePatch(detail: string): ApiError {
  return new ApiError(422, 'Invalid', `${UNPROCESSABLE_PATCH_PREFIX}: ${detail}`);
}

/** A short description of a JSON value's type for messages: `a string`, `an array`, `null`. */
export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'object':
      return 'an object';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'undefined':
      return 'nothing';
    default:
      return `a ${typeof value}`;
  }
}

/** A value rendered as JSON for a message, cut short when long. */
export function shortJson(value: unknown, max = 120): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/**
 * asPatchError passes ApiErrors through and turns anything else raised while applying a
 * patch (such as a stack overflow on absurdly deep input) into a 422 naming the patch type.
 */
export function asPatchError(err: unknown, patchType: string): ApiError {
  if (isApiError(err)) return err;
  if (err instanceof RangeError) return malformedPatch(`the ${patchType} is nested too deeply to apply`);
  const message = err instanceof Error ? err.message : String(err);
  return unprocessablePatch(`the ${patchType} could not be applied: ${message}`);
}
