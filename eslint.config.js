import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries (docs/architecture.md). A module of domain/ is used only through its index.ts:
 * outside a module, `domain/<module>/<file>.js` is refused unless the file is index.js. Inside a module,
 * siblings import each other freely. test/ may import a module's inner files (unit tests of its rules).
 * Import cycles between folders and between modules, and reads of another module's tables, are checked
 * by test/architecture/boundaries.test.ts, which also proves that these rules fire.
 */
const INNER_FILE_OF_A_MODULE = {
  regex: '^(?:\\.{1,2}/)+domain/[^/]+/(?!index\\.js$).+',
  message: 'Import a domain module only through its index.js (domain/<module>/index.js), never one of its inner files.',
};
const INNER_FILE_OF_ANOTHER_MODULE = {
  regex: '^\\.\\./(?!\\.\\.)[^/]+/(?!index\\.js$).+',
  message: 'Another module is used only through its index.js (../<module>/index.js), never one of its inner files.',
};
const DOMAIN_KNOWS_NO_RUNTIME = [
  {
    regex: '^\\.\\./\\.\\./(?:api|workers|activities|workflows|scripts|bench|simulators|test)(?:/|$)',
    message: 'domain/ holds business rules and SQL: it imports no API, worker, activity, workflow or script code.',
  },
  {
    group: ['fastify', 'fastify-*', '@fastify/*', '@temporalio/*'],
    message: 'domain/ knows nothing of Fastify or Temporal.',
  },
];

export default tseslint.config(
  {
    ignores: ['node_modules/', '.data/', 'coverage/', 'web/dist/', '**/*.generated.ts', 'clients/typescript/dist/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    ignores: ['domain/**', 'db/**', 'workflows/**', 'test/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [INNER_FILE_OF_A_MODULE] }] },
  },
  {
    files: ['domain/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [INNER_FILE_OF_ANOTHER_MODULE, ...DOMAIN_KNOWS_NO_RUNTIME] }] },
  },
  {
    files: ['db/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(?:\\.{1,2}/)+domain(?:/|$)', message: 'db/ holds the migrations and the client: it imports nothing of domain/.' },
          ],
        },
      ],
    },
  },
  {
    // The bundle of workflows/index.ts must hold workflow code only: types of activities are fine.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(?:domain|db|api|workers|scripts|config)(?:/|$)',
              message: 'Workflows never import domain/ (only activities do); the bundle holds workflow code only.',
            },
            {
              regex: '^\\.\\./activities(?:/|$)',
              allowTypeImports: true,
              message: 'Workflow code imports only the types of activities (proxyActivities<…>), never their code.',
            },
          ],
        },
      ],
    },
  },
);
