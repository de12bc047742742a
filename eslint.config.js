// @ts-check
import js from '@eslint/js';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import tseslint from 'typescript-eslint';

const FEATURES = ['identity', 'oauth', 'console', 'wifi', 'payments', 'notify'];

/** Another feature's private files: only its index.ts is public. */
const privateFilesOf = (feature) => [
  `**/${feature}/*.store.js`,
  `**/${feature}/*.routes.js`,
  `**/${feature}/*.schema.js`,
];

export default tseslint.config(
  { ignores: ['dist/', 'dist-bench/', 'node_modules/', 'coverage/', '.tap/', 'data/', 'bin/', 'build/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },
  // Every suppression says why, and none outlives its reason.
  comments.recommended,
  {
    rules: { '@eslint-community/eslint-comments/require-description': 'error' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    files: ['src/**/*.ts', 'migrations/**/*.ts'],
    ignores: ['src/lib/clock.ts', 'src/lib/crypto.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read time from deps.clock (lib/clock.ts), never new Date().',
        },
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'process.env is read only in src/config/.',
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Read time from deps.clock (lib/clock.ts).' },
        {
          object: 'Math',
          property: 'random',
          message: 'Use lib/crypto.ts (crypto.randomInt / randomBytes).',
        },
      ],
      'no-console': 'error',
    },
  },
  {
    files: ['src/config/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read time from deps.clock (lib/clock.ts), never new Date().',
        },
      ],
    },
  },
  // Domain files never import the HTTP layer, the RADIUS edge or the CLI.
  ...FEATURES.map((feature) => ({
    files: [`src/${feature}/**/*.ts`],
    ignores: [
      `src/${feature}/**/*.routes.ts`,
      `src/${feature}/**/*.http.ts`,
      `src/${feature}/**/*.schema.ts`,
      `src/${feature}/index.ts`,
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/http/*', '**/radius/*', '**/cli/*'],
              message: 'Domain code does not import http/, radius/ or cli/.',
            },
            {
              group: FEATURES.filter((f) => f !== feature).flatMap(privateFilesOf),
              message: 'Import another feature through its index.ts, never its .store/.routes/.schema files.',
            },
          ],
        },
      ],
    },
  })),
  ...FEATURES.map((feature) => ({
    files: [
      `src/${feature}/**/*.routes.ts`,
      `src/${feature}/**/*.http.ts`,
      `src/${feature}/**/*.schema.ts`,
      `src/${feature}/index.ts`,
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/radius/*', '**/cli/*'], message: 'Features do not import radius/ or cli/.' },
            {
              group: FEATURES.filter((f) => f !== feature).flatMap(privateFilesOf),
              message: 'Import another feature through its index.ts, never its .store/.routes/.schema files.',
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['src/lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*/*', '!../lib/*'],
              message: 'lib/ is a leaf: it imports nothing from the rest of src/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // tap's t.test/t.rejects return promises the runner tracks itself.
      '@typescript-eslint/no-floating-promises': 'off',
      // Tests read JSON response bodies (typed `any` in test/helpers/client.ts, with its reason)
      // and pin them with t.same/t.match, which is where their shape is checked.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Build scripts in plain JavaScript, run by node before anything is compiled.
    files: ['eslint.config.js', 'scripts/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
