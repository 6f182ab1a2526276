// eslint.config.js: the JS linter's rules (ESLint flat config): the recommended set, with the
// globals each kind of file really has. Formatting is prettier's job (.prettierrc.json), types
// are tsc's (tsconfig.json); scripts/lint runs both checks.
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    ignores: [
      'web/wasm/**',
      'dist/**',
      'build/**',
      'bench-results/**',
      'tests/browser/screenshots/**',
    ],
  },
  js.configs.recommended,
  {
    rules: {
      'no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['web/**/*.js', 'tests/browser/pages/*.js', 'examples/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['web/train-worker.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.worker } },
  },
  {
    files: ['scripts/**/*.mjs', 'tests/**/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // code handed to page.evaluate() runs in the page
    files: [
      'tests/browser/**/*.mjs',
      'scripts/perf/**/*.mjs',
      'scripts/screens.mjs',
      'scripts/bench-embed.mjs',
    ],
    languageOptions: { globals: { ...globals.browser } },
  },
];
