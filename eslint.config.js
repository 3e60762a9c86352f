// ESLint flat config. TypeScript is linted with type information (typescript-eslint's
// projectService reads tsconfig.json), so rules such as no-floating-promises see the types.
// Formatting is Prettier's job (`npm run format`); no rule here is about layout.
import { defineConfig } from 'eslint/config';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'bench/results/', '.conductor/', 'scratch-perf/'] },

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its rejection: await it, hand it to something that
      // handles it, or mark it `void` with a comment saying where its errors go.
      // node:test's test()/describe()/it() return promises the runner itself awaits and reports.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      // An async function where a void callback is expected (event handlers, setTimeout,
      // forEach) drops its rejection the same way.
      '@typescript-eslint/no-misused-promises': 'error',
      // Imports used only as types are written `import type`, so they vanish from the
      // emitted JavaScript and never create a runtime import cycle.
      // An inline `import('x').T` in a type position is type-only by nature, so it is allowed.
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // `async` without `await` is deliberate here: it implements a Promise-returning interface
      // (providers, the fake client) and turns a synchronous throw into a rejection, which
      // callers rely on. The rule's remedy (drop `async`) would change that; the hazards it
      // guards against are covered by no-floating-promises and no-misused-promises.
      '@typescript-eslint/require-await': 'off',
      // Rejecting with what was caught (a pass-through) is fine, as only-throw-error allows
      // rethrowing it; building a rejection from a non-Error is not.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Off: after `v !== null && v !== undefined` TypeScript narrows `unknown` to `{}`, which
      // this rule takes for an object, so nearly all of its findings here were primitives
      // stringified on purpose (table cells, Go-syntax quoting, selector values).
      // restrict-template-expressions (on) still catches objects put into template strings.
      '@typescript-eslint/no-base-to-string': 'off',
      // The code compares with === everywhere; the one deliberate == (CEL int/double
      // equality) carries a disable comment saying why.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // `_`-prefixed names are deliberately unused (a callback's position, a rest sibling).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },

  // These wrap errors from database, Redis and S3 clients, whose fields (`sql`, `detail`, the
  // request) may quote credentials: the message is kept, the client's error is deliberately
  // not attached as `cause` (secret-redaction.ts redacts an error's message, not its causes).
  {
    files: [
      'src/providers/local/mysql/shared-server.ts',
      'src/providers/local/mysql/local-instance.ts',
      'src/providers/local/postgresql/shared-server.ts',
      'src/providers/local/postgresql/local-instance.ts',
      'src/providers/local/redis/admin.ts',
      'src/providers/local/redis/shared-server.ts',
      'src/providers/local/s3/s3-server.ts',
    ],
    rules: { 'preserve-caught-error': 'off' },
  },

  // Tests read untyped JSON (HTTP bodies, kubectl -o json, parsed YAML) and assert on it
  // field by field; typing every such read would add casts, not safety. Production code
  // keeps these rules.
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },

  // Plain JavaScript (scripts/*.mjs, this file) is outside tsconfig.json: lint it without types.
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
    rules: { '@typescript-eslint/consistent-type-imports': 'off', '@typescript-eslint/no-import-type-side-effects': 'off' },
  },
  // CommonJS config files (e.g. a dependency-cruiser config) load with require() by nature.
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
