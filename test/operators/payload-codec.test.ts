import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { ulid } from 'ulidx';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { AesGcmPayloadCodec, shopflowDataConverter, type CodecKey } from '../../config/payload-codec.js';
import { cachedWorkflowBundle } from '../../workers/setup/workflow-bundle.js';
import { workflowsPath } from '../../workers/setup/create-worker.js';
import type { deliveryWorkflow } from '../../workflows/deliveries/delivery-workflow.js';
import { deliveryWorkflowId, startDelivery } from '../../workflows/deliveries/delivery-starter.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';
import { TEST_OPERATOR_TOKEN } from '../support/api.js';
import { testEnv } from '../support/environment.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { testCodecKeys } from '../support/temporal.js';

/**
 * Customer data out of workflow histories (issue 26): every payload is encrypted by the codec of every
 * client and worker; the codec endpoint decodes for an authenticated operator only.
 */
const { api, temporal, receiver, shop } = useSuite({ api: true, shop: true, receiver: true, worker: true });
const run = promisify(execFile);
const CUSTOMER = 'Nguyễn Thị Mã Hoá';
const PHONE = '+84912000111';

/** A delivered webhook whose event names a customer; answers its workflow id. */
async function deliveredCustomerEvent(): Promise<string> {
  const inbox = randomUUID();
  const url = receiver.url(inbox);
  const { flowId } = await shop.newFlow({ name: 'Customers to CRM', eventType: 'customer.created', url, state: 'on' });
  const eventId = `evt_${ulid()}`;
  const payload = JSON.stringify({ id: eventId, type: 'customer.created', data: { name: CUSTOMER, primaryPhone: PHONE } });
  const input = {
    shopId: shop.shopId,
    flowId,
    eventId,
    eventType: 'customer.created',
    deliveryId: `msg_${ulid()}`,
    url,
    payload,
    about: { shopSlug: shop.slug, flowName: 'Customers to CRM', record: CUSTOMER },
  };
  // As the relay starts it: sealed, with the search attributes an operator filters by and its summary.
  await startDelivery(temporal.deliveries, input);
  const workflowId = deliveryWorkflowId(flowId, eventId);
  const handle = temporal.client.workflow.getHandle<typeof deliveryWorkflow>(workflowId);
  expect((await handle.result()).status).toBe('delivered');
  return workflowId;
}

/** `temporal workflow show` as an operator runs it, with `codecArgs` or without. */
async function show(workflowId: string, ...codecArgs: string[]): Promise<string> {
  const cli = process.env.TEMPORAL_CLI;
  if (!cli) throw new Error('TEMPORAL_CLI is not set: npm test passes the dev server’s CLI');
  const args = [
    'workflow',
    'show',
    '--workflow-id',
    workflowId,
    '--address',
    testEnv('TEMPORAL_ADDRESS'),
    '--output',
    'json',
    ...codecArgs,
  ];
  return (await run(cli, args, { timeout: 60_000 })).stdout;
}

/** The workflow's input as `temporal workflow show --output json` prints it: its encoding and its bytes as text. */
function startInput(output: string): { encoding: string; text: string } {
  const { events } = JSON.parse(output) as {
    events: { workflowExecutionStartedEventAttributes?: { input: { payloads: { metadata: { encoding: string }; data: string }[] } } }[];
  };
  const [payload] = events[0]!.workflowExecutionStartedEventAttributes!.input.payloads;
  return {
    encoding: Buffer.from(payload!.metadata.encoding, 'base64').toString(),
    text: Buffer.from(payload!.data, 'base64').toString(),
  };
}

const codecEndpoint = () => `${api.baseUrl}/temporal-codec`;

describe('workflow payloads are encrypted', () => {
  it('a delivery’s history holds no customer data; the operator’s CLI with the codec endpoint reads it', async () => {
    const workflowId = await deliveredCustomerEvent();
    const raw = await show(workflowId);
    const stored = startInput(raw);
    expect(stored.encoding).toBe('binary/encrypted');
    expect(stored.text).not.toContain(CUSTOMER);
    expect(stored.text).not.toContain(PHONE);

    const decoded = startInput(
      await show(workflowId, '--codec-endpoint', codecEndpoint(), '--codec-auth', `Bearer ${TEST_OPERATOR_TOKEN}`),
    );
    expect(decoded.encoding).toBe('json/plain');
    expect(JSON.parse(JSON.parse(decoded.text).payload)).toMatchObject({ data: { name: CUSTOMER, primaryPhone: PHONE } });

    // A wrong credential decodes nothing: the endpoint answers 401 and the CLI shows no plain payload.
    const refused = await show(workflowId, '--codec-endpoint', codecEndpoint(), '--codec-auth', 'Bearer not-the-operator').then(
      (output) => ({ shown: startInput(output) }),
      (error: { stdout?: string; stderr?: string }) => ({ failed: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
    );
    // The endpoint answers 401 (the codec endpoint tests below); the CLI keeps asking until its deadline and
    // shows nothing: no history at all, let alone the plain payload.
    expect(refused).toEqual({ failed: expect.stringMatching(/deadline exceeded/) });
    expect(JSON.stringify(refused)).not.toContain(CUSTOMER);
  });

  it('Shopflow’s search attributes carry ids and states only', async () => {
    const workflowId = await deliveredCustomerEvent();
    const { searchAttributes } = await temporal.client.workflow.getHandle(workflowId).describe();
    const ours = Object.entries(searchAttributes).filter(([key]) => key in SEARCH_ATTRIBUTES);
    expect(ours.map(([key]) => key).sort()).toEqual(['DeliveryStatus', 'EventId', 'EventType', 'FlowId', 'ShopId', 'ShopSlug', 'TestRun']);
    const values = ours.flatMap(([, value]) => value as unknown[]).map(String);
    // Ids, states, the event type, the shop's slug (its id in URLs), a flag: never the record's name, which only the encrypted summary holds.
    for (const value of values) expect(value).toMatch(/^([0-9a-f-]{36}|evt_[0-9A-Z]{26}|[a-z]+\.[a-z_]+|[a-z]+|shop-[0-9a-f]{8})$/);
    expect(values.join(' ')).not.toContain(CUSTOMER);
  });

  it('an encrypted history replays with today’s workflow code and codec', async () => {
    const workflowId = await deliveredCustomerEvent();
    const history = await temporal.client.workflow.getHandle(workflowId).fetchHistory();
    const { bundle } = await cachedWorkflowBundle(workflowsPath);
    await Worker.runReplayHistory({ workflowBundle: bundle, dataConverter: shopflowDataConverter(testCodecKeys) }, history, workflowId);
  });
});

describe('the codec endpoint', () => {
  const sample = async () => {
    const [encrypted] = await new AesGcmPayloadCodec(testCodecKeys).encode([
      { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify({ name: CUSTOMER })) },
    ]);
    return {
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(encrypted!.metadata!).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
          ),
          data: Buffer.from(encrypted!.data!).toString('base64'),
        },
      ],
    };
  };
  const decode = async (headers: Record<string, string>) =>
    fetch(`${codecEndpoint()}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(await sample()),
    });

  it('decodes nothing for an anonymous caller or a wrong token', async () => {
    await expectProblem(await decode({}), 401, 'not-logged-in');
    await expectProblem(await decode({ authorization: 'Bearer guess' }), 401, 'not-logged-in');
    await expectProblem(await decode({ cookie: 'shopflow_operator=9999999999.forged' }), 401, 'not-logged-in');
  });

  it('decodes for the operator token, and for the session the log-in page gives', async () => {
    const withToken = await decode({ authorization: `Bearer ${TEST_OPERATOR_TOKEN}` });
    expect(withToken.status).toBe(200);
    const { payloads } = (await withToken.json()) as { payloads: { data: string }[] };
    expect(JSON.parse(Buffer.from(payloads[0]!.data, 'base64').toString())).toEqual({ name: CUSTOMER });

    const login = (token: string) =>
      fetch(`${codecEndpoint()}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
    await expectProblem(await login('not-the-operator'), 401, 'invalid-credentials');
    const loggedIn = await login(TEST_OPERATOR_TOKEN);
    expect(loggedIn.status).toBe(204);
    const cookie = loggedIn.headers.get('set-cookie')!;
    // Sent by the browser to the codec endpoint alone, never readable by scripts, over TLS (or loopback), from the UI's site, for hours.
    const flags = cookie
      .split(';')
      .slice(1)
      .map((flag) => flag.trim().toLowerCase());
    expect(flags).toEqual(expect.arrayContaining(['path=/temporal-codec', 'httponly', 'secure', 'samesite=none']));
    expect(flags.find((flag) => flag.startsWith('max-age='))).toMatch(/^max-age=\d+$/);
    expect(flags.some((flag) => flag.startsWith('domain='))).toBe(false);
    expect((await decode({ cookie: cookie.split(';')[0]! })).status).toBe(200);
  });

  it('answers CORS with credentials to the Web UI’s origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${codecEndpoint()}/decode`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
      });
    const ui = await preflight('http://127.0.0.1:8233');
    expect(ui.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8233');
    expect(ui.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await preflight('http://localhost:8233')).headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    expect((await preflight('https://attacker.example')).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('key rotation', () => {
  const key = (id: string): CodecKey => ({ id, key: randomBytes(32) });

  it('a new key in front encrypts; the old one still opens what it sealed; without it, a clear refusal', async () => {
    const [old, fresh] = [key('2026-01'), key('2026-11')];
    const plain = [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"Trần Văn Xoay"') }];
    const sealedBefore = await new AesGcmPayloadCodec([old]).encode(plain);
    const rotated = new AesGcmPayloadCodec([fresh, old]);
    const [sealedAfter] = await rotated.encode(plain);
    expect(Buffer.from(sealedAfter!.metadata!['encryption-key-id']!).toString()).toBe('2026-11');
    expect(Buffer.from((await rotated.decode(sealedBefore))[0]!.data!).toString()).toBe('"Trần Văn Xoay"');
    await expect(new AesGcmPayloadCodec([fresh]).decode(sealedBefore)).rejects.toThrow(/no payload codec key "2026-01"/);
    // Payloads recorded before the codec pass through unchanged.
    expect(await rotated.decode(plain)).toEqual(plain);
  });
});
