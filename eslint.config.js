// Lint rules for src, test and bench: typescript-eslint's recommended set, with the few choices below.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'test-results/**', 'src/db/schema.ts', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The command's launcher is plain JavaScript run by node.
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
  {
    files: ['**/*.ts'],
    rules: {
      // Unused bindings are errors, except a leading underscore marks one kept on purpose (a callback's position).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-constant-condition': ['error', { checkLoops: false }],
      // A closure may read a binding assigned later (a URL known once the server listens).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // The input guards match NUL and other control characters on purpose.
      'no-control-regex': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // One clock: the modules take the time from the app's clock (AppContext.clock, passed down), never the
    // system's, so a test or a worker sets the time every rule sees. The wall clock is read at the edges only
    // (app.ts, runtime.ts, main.ts). A date built from a value (`new Date(iso)`) is not a clock reading.
    files: ['src/modules/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: "Take the time from the app's clock (a `now` or `clock` argument), not `new Date()`.",
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: "Take the time from the app's clock (a `now` or `clock` argument), not `Date.now()`.",
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
