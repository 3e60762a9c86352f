export { compileSchema, type CompiledSchema, type CompileOptions } from './compile.js';
export { validateStructuralSchema } from './structural.js';
export { FORMATS } from './formats.js';
export { OBJECT_META_FIELDS } from './prune.js';
