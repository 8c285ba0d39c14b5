// ESLint flat config: typescript-eslint's strict-type-checked rules over every TypeScript file,
// with type information from tsconfig.lint.json. Run with `npm run lint`, after the wasm build:
// the facade's types come from the generated glue ts/wasm/veilkit.d.ts.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'target/**', 'ts/wasm/**', 'ts/wasm-threads/**', 'ts/wasm-group/**', 'test-results/**',
      'playwright-report/**', 'bench/dist/**', 'fuzz/**', 'crate/**', 'vectors/**',
      // Apps with their own toolchain (type-checked by their own build): the examples and the
      // scratch apps of tests/bundlers/ (the smoke flow, the matrix spec and its config stay linted).
      'examples/react/**', 'examples/next/**', 'tests/bundlers/vite6/**', 'tests/bundlers/vite8/**', 'tests/bundlers/vite-page/**', 'tests/bundlers/importmap/**',
      // JavaScript (the test server, the bench runners, this file) is Node tooling outside the
      // gate: the rules below need TypeScript's types.
      '**/*.js', '**/*.mjs', '**/*.cjs'],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: {
        project: './tsconfig.lint.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Public entry points, worker message handlers and wasm results re-check at run time what
      // their static types promise (JS callers, postMessage data); this rule flags exactly those checks.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Error messages state the numbers they got ("got 31 bytes"); numbers print unambiguously.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `=== true` / `=== false` check values that cross a boundary (wasm, postMessage, WebCrypto,
      // a JS caller): exactly the boolean, not merely truthy, whatever the static type says.
      '@typescript-eslint/no-unnecessary-boolean-literal-compare': 'off',
      // An `async` function without `await` is deliberate here: its argument checks reject the
      // promise instead of throwing synchronously, as the promise-returning API documents.
      '@typescript-eslint/require-await': 'off',
      // `String(x)` formats a value that failed a run-time check, whatever its static type says
      // (and, unlike a template literal, does not throw on a Symbol).
      '@typescript-eslint/no-unnecessary-type-conversion': 'off',
      // Passing a caught value on (`catch (e) { reject(e) }`) keeps the error as it was thrown.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // `() => wipe(key)` and `(r) => resolve(r)` callbacks return void on purpose.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },
  // The folders depend one way (DEVELOPERS.md "Layout"): protocol/ <- ts/ <- worker/.
  {
    files: ['ts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: ['**/worker/**', '../worker', '../../worker'], message: 'The facade (ts/) never imports worker/: shared types and checks belong in protocol/.' }],
      }],
    },
  },
  {
    files: ['protocol/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/worker/**'], message: 'protocol/ is shared by the facade and the workers: it imports nothing from worker/.' },
          { group: ['**/ts/**'], allowTypeImports: true, message: 'protocol/ imports only types from ts/ (import type).' },
        ],
      }],
    },
  },
  {
    files: ['tests/**/*.ts'],
    rules: {
      // Tests index vectors and fixtures whose shape they built or checked themselves; a wrong
      // assumption throws and fails the test, which is what a check would do.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // The tests keep calling the deprecated release aliases (`close()`, `free()`, `destroy()`):
      // published names that must keep working. Library code is held to the rule.
      '@typescript-eslint/no-deprecated': 'off',
      // node:test's test() and describe() return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }],
      }],
    },
  },
  {
    files: ['tests/playwright/**/*.spec.ts'],
    rules: {
      // Playwright reads a test's fixtures from its first parameter's destructuring pattern:
      // `async ({}, testInfo) => …` is how a test that needs no fixture reaches testInfo.
      'no-empty-pattern': 'off',
    },
  },
);
