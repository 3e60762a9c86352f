/**
 * Kubernetes exposes an object's properties to CEL under escaped names: `foo-bar` is
 * `self.foo__dash__bar`, `namespace` (a reserved word) is `self.__namespace__`. Names that
 * cannot be escaped are not accessible from rules.
 */

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
const ESCAPABLE = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;

/** Returns the CEL name of a property, or undefined when rules cannot address it. */
export function escapePropertyName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!ESCAPABLE.test(name)) return undefined;
  if (!/[_.\-/]/.test(name)) return name;
  return name.replace(/__/g, '__underscores__').replace(/\./g, '__dot__').replace(/-/g, '__dash__').replace(/\//g, '__slash__');
}

/** True when the property is exposed under a name other than its own. */
export function needsEscape(name: string): boolean {
  return escapePropertyName(name) !== name;
}
