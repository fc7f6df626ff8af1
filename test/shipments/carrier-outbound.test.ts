import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundAgent } from '../../adapters/outbound/outbound-http.js';
import { carrierA } from '../../adapters/carriers/carrier-a.js';
import { CarrierError } from '../../adapters/carriers/carrier-adapter.js';
import { CARRIER_FAILURE_TYPES, createCarrierActivities } from '../../activities/shipments/shipment-activities.js';
import { seal } from '../../domain/kernel/index.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { TEST_WORKFLOW_SEAL_KEY } from '../support/environment.js';
import { carrierEndpointRefusal, type CarrierEndpoints } from '../../domain/shipments/index.js';
import { OFFICIAL_CARRIER_HOSTS } from '../../config/settings.js';
import { connectCarrier } from '../../domain/shipments/carrier-connections.js';
import { adminLogIn } from '../support/admin-session.js';
import { testCarrierOptions, testConnectionKeys } from '../support/carriers.js';
import { testSecretsKey } from '../support/fixtures.js';
import { addWarehouse } from '../../scripts/fixtures/index.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { addMember } from '../../domain/access/users.js';
import { pickUpAddress } from './carrier-order-request.js';

/** Production: the carriers' own hosts over https, nothing else. */
const production: CarrierEndpoints = { hosts: OFFICIAL_CARRIER_HOSTS, allowLoopback: false };
/** Internal addresses a shop admin tried as a carrier's base URL (issue 26). */
const INTERNAL = ['http://169.254.169.254', 'http://[::1]:7233', 'http://temporal-ui:8080'];
const PASSWORD = 'correct horse battery staple';

const { db, api, shop } = useSuite({ api: { carrierEndpoints: production }, shop: true });

/** A stand-in carrier over plain HTTP on loopback, answering whatever `answer` says. */
let answer: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end('{}');
let stand: Server;
let standUrl: string;
let hits: string[];

beforeAll(async () => {
  stand = createServer((request, response) => {
    hits.push(request.url ?? '');
    answer(request, response);
  });
  await new Promise<void>((resolve) => stand.listen(0, '127.0.0.1', resolve));
  standUrl = `http://127.0.0.1:${(stand.address() as AddressInfo).port}`;
  await addMember(db.app, shop.shopId, { email: 'owner@shop.test', name: 'Owner', password: PASSWORD });
});
afterAll(() => new Promise<void>((resolve) => stand?.close(() => resolve())));

const adapter = (baseUrl = standUrl, options = testCarrierOptions(2_000)) =>
  carrierA({ baseUrl, credentials: { token: 'token', shopId: 1 } }, options);

async function carrierErrorOf(work: Promise<unknown>): Promise<CarrierError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CarrierError);
  return error as CarrierError;
}

describe('where a carrier connection may point', () => {
  it.each(INTERNAL)('refuses %s in production', (baseUrl) => {
    expect(carrierEndpointRefusal('carrier_a', baseUrl, production)).toMatch(/only at the carrier's own API over https/);
    expect(carrierEndpointRefusal('carrier_b', baseUrl, production)).toBeDefined();
  });

  it('takes only the carrier’s own hosts over https, without credentials in the address', () => {
    expect(carrierEndpointRefusal('carrier_a', 'https://online-gateway.ghn.vn', production)).toBeUndefined();
    expect(carrierEndpointRefusal('carrier_b', 'https://services.giaohangtietkiem.vn', production)).toBeUndefined();
    expect(carrierEndpointRefusal('carrier_b', 'https://online-gateway.ghn.vn', production)).toBeDefined();
    expect(carrierEndpointRefusal('carrier_a', 'http://online-gateway.ghn.vn', production)).toBeDefined();
    expect(carrierEndpointRefusal('carrier_a', 'https://online-gateway.ghn.vn.attacker.example', production)).toBeDefined();
    expect(carrierEndpointRefusal('carrier_a', 'https://x@online-gateway.ghn.vn', production)).toBeDefined();
  });

  it('lets development reach loopback (the simulators), still no other internal address', () => {
    const development = { ...production, allowLoopback: true };
    expect(carrierEndpointRefusal('carrier_a', 'http://127.0.0.1:3601', development)).toBeUndefined();
    expect(carrierEndpointRefusal('carrier_a', 'http://169.254.169.254', development)).toBeDefined();
    expect(carrierEndpointRefusal('carrier_a', 'http://temporal-ui:8080', development)).toBeDefined();
    expect(carrierEndpointRefusal('carrier_a', 'http://10.0.0.5:7233', development)).toBeDefined();
  });

  it.each(INTERNAL)('the admin API refuses a connection to %s with 400 and stores nothing', async (baseUrl) => {
    const owner = await adminLogIn(api.baseUrl, { shop: shop.slug, email: 'owner@shop.test', password: PASSWORD });
    const warehouseId = await withShop(db.app, shop.shopId, (tx) => addWarehouse(tx, shop.shopId));
    const response = await owner('POST', '/carrier-connections', {
      carrier: 'carrier_a',
      name: 'GHN',
      credentials: { token: 't', shopId: 1 },
      warehouseId,
      baseUrl,
      pickUp: pickUpAddress,
    });
    const problem = await expectProblem(response, 400, 'validation-failed');
    expect(problem.errors).toEqual([{ path: 'baseUrl', message: expect.stringMatching(/online-gateway\.ghn\.vn/) }]);
    expect(await db.admin`select 1 from carrier_connections`).toHaveLength(0);
  });

  it('a stored connection that points elsewhere is never called: unusable, not retried', async () => {
    hits = [];
    const connectionId = await withShop(db.app, shop.shopId, async (tx) => {
      const input = {
        carrier: 'carrier_a' as const,
        name: 'made before the rule',
        credentials: { token: 't', shopId: 1 },
        warehouseId: await addWarehouse(tx, shop.shopId),
        baseUrl: standUrl,
        pickUp: pickUpAddress,
      };
      return (await connectCarrier(tx, shop.shopId, input, testConnectionKeys)).connectionId;
    });
    const activities = createCarrierActivities({
      sql: db.app,
      secretsKey: testSecretsKey,
      sealKey: TEST_WORKFLOW_SEAL_KEY,
      adapterOptions: { ...testCarrierOptions(1_000), endpoints: production },
    });
    const workflowId = `shipment:${randomUUID()}`;
    const tracking = seal(TEST_WORKFLOW_SEAL_KEY, { shopId: shop.shopId, shipmentId: randomUUID(), pollEveryMs: 60_000 }, workflowId);
    const failure = await new MockActivityEnvironment({ workflowExecution: { workflowId, runId: randomUUID() } })
      .run(() => activities.pollCarrier(tracking, { connectionId, trackingCode: 'GHN1' }))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: CARRIER_FAILURE_TYPES.unauthorized, nonRetryable: true });
    expect(hits).toEqual([]);
  });
});

describe('carrier calls go through the outbound policy', () => {
  it('refuses at connect time an address the policy does not allow, without naming it', async () => {
    hits = [];
    const strict = { ...testCarrierOptions(1_000), dispatcher: createOutboundAgent({ allowLoopback: false }) };
    const error = await carrierErrorOf(adapter(standUrl, strict).status('GHN1'));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/not allowed/);
    expect(error.message).not.toMatch(/127\.0\.0\.1/);
    expect(hits).toEqual([]);
  });

  it('never echoes the answer: a 401 body stays out of the error', async () => {
    answer = (_request, response) => {
      response.statusCode = 401;
      response.end('{"message":"internal-token-abc123 at 10.1.2.3"}');
    };
    const error = await carrierErrorOf(adapter().status('GHN1'));
    expect(error.kind).toBe('unauthorized');
    expect(error.message).not.toMatch(/internal-token|10\.1\.2\.3/);
  });

  it('reads at most 1 MiB of an answer', async () => {
    let written = 0;
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      response.on('close', () => response.destroy());
      pump();
    };
    const error = await carrierErrorOf(adapter().status('GHN1'));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/larger than 1048576 bytes/);
    // The connection is dropped soon after the cap: nowhere near the 64 MiB the stand-in would send.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('follows no redirect', async () => {
    hits = [];
    answer = (request, response) => {
      if (request.url?.startsWith('/elsewhere')) return void response.end('{}');
      response.writeHead(302, { location: `${standUrl}/elsewhere` }).end();
    };
    await carrierErrorOf(adapter().status('GHN1'));
    expect(hits.some((path) => path.startsWith('/elsewhere'))).toBe(false);
  });

  it('gives up on a carrier that does not answer in time', async () => {
    answer = () => undefined; // never answers
    const error = await carrierErrorOf(adapter(standUrl, testCarrierOptions(300)).status('GHN1'));
    expect(error.message).toMatch(/no answer in time/);
  });
});
