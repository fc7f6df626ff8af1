import { runSuite } from './suite-run.js';

/**
 * `npm run fuzz`: the services of `npm test`, then the long Schemathesis run of
 * test/hardening/fuzz.test.ts (at least 5,000 requests, the stateful phase along the document's links).
 * Reports go to `.data/fuzz/full/`.
 */
await runSuite('npm run fuzz', ['test/hardening/fuzz.test.ts', ...process.argv.slice(2)], { env: { SHOPFLOW_FUZZ: 'full' } });
