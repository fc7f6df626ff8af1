import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Boundaries (docs/architecture.md), written by the role of a file. A module of domain/ is used only
 * through its index.ts: outside a module, `domain/<module>/<file>.js` is refused unless the file is
 * index.js; inside a module, siblings import each other freely; test/ may import a module's inner files
 * (unit tests of its rules). Then each role imports only what sits below it: workflow code, starters
 * (the client side of a feature's workflows), activities, adapters to outside services, the API,
 * worker entry points. Import cycles, reads of another module's tables, and proof that every rule
 * here fires on a planted violation are in test/architecture/boundaries.test.ts.
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
    regex: '^\\.\\./\\.\\./(?:api|workers|activities|adapters|workflows|scripts|bench|simulators|test|telemetry)(?:/|$)',
    message: 'domain/ holds business rules and SQL: it imports no API, worker, activity, adapter, workflow, script or telemetry code.',
  },
  {
    group: ['fastify', 'fastify-*', '@fastify/*', '@temporalio/*'],
    message: 'domain/ knows nothing of Fastify or Temporal.',
  },
];

/** `../../<folder>/…` from any depth: an import of one of the project's top-level folders. */
const topFolder = (...folders) => `^(?:\\.{1,2}/)+(?:${folders.join('|')})(?:/|$)`;
/** The client side of a feature's workflows: `workflows/<feature>/*-starter.ts`, the outbox relay and its pace. */
const STARTERS = ['workflows/*/*-starter.ts', 'workflows/*/*-relay.ts', 'workflows/deliveries/shop-pace.ts'];
const restrict = (files, patterns, ignores = []) => ({ files, ignores, rules: { 'no-restricted-imports': ['error', { patterns }] } });

const WORKFLOW_CODE_RULES = [
  INNER_FILE_OF_A_MODULE,
  {
    regex: '^(?!\\.|@temporalio/(?:workflow|common)$|@temporalio/interceptors-opentelemetry/lib/)',
    message:
      "Workflow code runs in Temporal's deterministic sandbox: of packages it imports only @temporalio/workflow, @temporalio/common and the workflow side of Temporal's OpenTelemetry interceptors.",
  },
  {
    regex: topFolder('domain', 'activities'),
    allowTypeImports: true,
    message: 'Workflow code imports only the types of domain/ and activities/ (proxyActivities<…>), never their code.',
  },
  {
    regex: topFolder('api', 'workers', 'adapters', 'scripts', 'config', 'db', 'telemetry'),
    message: 'Workflow code imports only workflow code: never the API, workers, adapters, config, db, telemetry or scripts.',
  },
  {
    regex: '-(?:starter|relay)\\.js$',
    message: 'Workflow code never imports a starter: starters are Temporal clients and stay out of the bundle.',
  },
];
const STARTER_RULES = [
  INNER_FILE_OF_A_MODULE,
  {
    regex: topFolder('api', 'workers', 'adapters', 'scripts'),
    message:
      "A starter is the client side of its feature's workflows: it imports workflow code, domain/ and config/, never the API, workers, adapters or scripts.",
  },
  { regex: topFolder('activities'), allowTypeImports: true, message: "A starter names the activities' input types, never their code." },
  { group: ['@temporalio/worker', '@temporalio/activity'], message: 'A starter is a client: it runs no worker and no activity.' },
];
const ACTIVITY_RULES = [
  INNER_FILE_OF_A_MODULE,
  {
    regex: topFolder('workflows', 'workers', 'api', 'scripts'),
    message:
      'Activities sit below the workflows: they import no workflow (not even a type: what a workflow hands its activities lives in activities/<feature>/), worker, API or script.',
  },
  {
    group: ['@temporalio/client', '@temporalio/workflow', '@temporalio/worker'],
    message: 'An activity starts no workflow itself: the worker hands it the starter it needs.',
  },
];
const ADAPTER_RULES = [
  INNER_FILE_OF_A_MODULE,
  {
    regex: topFolder('workflows', 'activities', 'workers', 'api', 'scripts'),
    message: 'An adapter speaks to one outside service for whoever calls it: it imports no workflow, activity, worker, API or script.',
  },
  { group: ['@temporalio/*'], message: 'Adapters know nothing of Temporal: the activities wrap them.' },
];
const API_RULES = [
  INNER_FILE_OF_A_MODULE,
  {
    regex: topFolder('activities', 'workers', 'scripts'),
    message: 'The API calls domain/, adapters/ and the starters of workflows/: never activities, workers or scripts.',
  },
  {
    regex: '^(?:\\.{1,2}/)+workflows/(?![^/]+/[^/]+-starter\\.js$)',
    message:
      "The API starts and signals a workflow through its feature's starter (workflows/<feature>/*-starter.ts), never by importing workflow code.",
  },
  {
    group: ['@temporalio/worker', '@temporalio/activity', '@temporalio/workflow'],
    message: 'The API is a Temporal client: no worker, activity or workflow runs in it.',
  },
];
/** The API process's entry point hosts the shipments' worker (docs/behaviour/shipments.md): through that one file of workers/. */
const API_ENTRY_RULES = API_RULES.map((rule) =>
  rule.regex === topFolder('activities', 'workers', 'scripts')
    ? {
        regex: `${topFolder('activities', 'scripts')}|^(?:\\.{1,2}/)+workers/(?!setup/shipment-worker-host\\.js$)`,
        message:
          "The API process's entry calls domain/, adapters/, the starters, and workers/setup/shipment-worker-host.ts for its worker (docs/behaviour/shipments.md).",
      }
    : rule,
);
const WORKER_RULES = [
  INNER_FILE_OF_A_MODULE,
  { regex: topFolder('api', 'scripts'), message: 'A worker process runs workflows and activities: it imports no API or script.' },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.data/',
      'coverage/',
      'web/dist/',
      '**/*.generated.ts',
      'clients/typescript/dist/',
      // `npm run build` compiles beside the sources (tsconfig.build.json).
      ...[
        'api',
        'domain',
        'workflows',
        'activities',
        'workers',
        'db',
        'config',
        'adapters',
        'telemetry',
        'scripts',
        'clients/typescript/src',
      ].map((dir) => `${dir}/**/*.js`),
    ],
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
  restrict(['**/*.ts', '**/*.js', '**/*.mjs'], [INNER_FILE_OF_A_MODULE], ['domain/**', 'db/**', 'test/**']),
  restrict(['domain/**/*.ts'], [INNER_FILE_OF_ANOTHER_MODULE, ...DOMAIN_KNOWS_NO_RUNTIME]),
  restrict(
    ['db/**/*.ts'],
    [{ regex: '^(?:\\.{1,2}/)+domain(?:/|$)', message: 'db/ holds the migrations and the client: it imports nothing of domain/.' }],
  ),
  // The bundle of workflows/index.ts holds workflow code only.
  restrict(['workflows/**/*.ts'], WORKFLOW_CODE_RULES, STARTERS),
  restrict(STARTERS, STARTER_RULES),
  restrict(['activities/**/*.ts'], ACTIVITY_RULES),
  restrict(['adapters/**/*.ts'], ADAPTER_RULES),
  restrict(['api/**/*.ts'], API_RULES, ['api/server.ts']),
  restrict(['api/server.ts'], API_ENTRY_RULES),
  restrict(['workers/**/*.ts'], WORKER_RULES),
);
