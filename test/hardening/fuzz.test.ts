import { afterAll, beforeAll, expect, it } from 'vitest';
import { CarrierA } from '../../simulators/carriers/carrier-a.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { useSuite } from '../support/suite.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';
import { seedFuzzShop, type FuzzShop } from './fuzz-shop.js';
import { fuzzTarget } from './fuzz-target.js';
import { runSchemathesis, type FuzzProfile } from './schemathesis-run.js';

/**
 * Schemathesis against the real API, every check on: 0 server errors, 0 responses outside the
 * document (status, content type, headers, body), 0 schema-valid requests refused, 0 invalid ones
 * accepted. `npm test` runs the bounded profile (a fixed seed, no stateful phase); `npm run fuzz`
 * (SHOPFLOW_FUZZ=full) the long one with a new seed and the stateful phase along the document's links.
 */
const PROFILES: Record<FuzzProfile['name'], FuzzProfile & { minRequests: number; timeoutMs: number }> = {
  bounded: {
    name: 'bounded',
    phases: ['examples', 'coverage', 'fuzzing'],
    maxExamples: 10,
    seed: 20261123,
    workers: 1,
    minRequests: 1_000,
    timeoutMs: 600_000,
  },
  full: {
    name: 'full',
    phases: ['examples', 'coverage', 'fuzzing', 'stateful'],
    maxExamples: 60,
    workers: 2,
    minRequests: 5_000,
    timeoutMs: 3_600_000,
  },
};
const profile = PROFILES[process.env.SHOPFLOW_FUZZ === 'full' ? 'full' : 'bounded'];

// Behind one trusted hop, as in a deployment behind a proxy: the hooks give each case a client address
// (X-Forwarded-For), so the fuzzer's keyless requests count as many clients' invalid keys, not one's
// (over 600 a minute from one address is 429, which the ignored_auth check does not take).
const suite = useSuite({
  api: { trustProxy: 1, shipments: { waitMs: 15_000, pollEveryMs: 600_000 } },
  worker: { shipments: true },
  chat: true,
});
let carriers: [CarrierA, CarrierB];
let shop: FuzzShop;

beforeAll(async () => {
  carriers = [await CarrierA.start(), await CarrierB.start()];
  const document = (await (await fetch(`${suite.api.baseUrl}${OPEN_API_DOCUMENT}`)).json()) as {
    paths: Record<string, Record<string, { tags?: string[] }>>;
  };
  const families: Record<string, number> = {};
  for (const operations of Object.values(document.paths))
    for (const operation of Object.values(operations)) {
      const family = operation.tags![0]!;
      families[family] = (families[family] ?? 0) + 1;
    }
  shop = await seedFuzzShop(suite, { carrier_a: carriers[0].url, carrier_b: carriers[1].url }, families);
});
afterAll(async () => {
  await Promise.all(carriers?.map((carrier) => carrier.close()) ?? []);
});

it(
  `fuzzes the Open API with Schemathesis (${profile.name}): no failure of any check`,
  async () => {
    const result = await runSchemathesis(await fuzzTarget(suite, shop), profile);
    const failures = Object.values(result.failuresByCheck).reduce((sum, count) => sum + count, 0);
    const byCheck = Object.entries(result.failuresByCheck)
      .map(([check, count]) => `${check} ${count}`)
      .join(', ');
    console.info(
      `fuzz (${profile.name}): ${result.requests} requests in ${result.seconds.toFixed(0)} s, ${failures} failed checks${byCheck ? ` (${byCheck})` : ''}; report in ${result.reportDir}`,
    );
    expect(failures, result.output.slice(0, 20_000)).toBe(0);
    expect(result.exitCode, result.output.slice(0, 20_000)).toBe(0);
    expect(result.requests).toBeGreaterThanOrEqual(profile.minRequests);
  },
  profile.timeoutMs,
);
