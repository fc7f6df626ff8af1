import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ulid } from 'ulidx';
import { WorkflowFailedError } from '@temporalio/client';
import { TEST_WORKFLOW_SEAL_KEY, timersOf } from '../support/temporal.js';
import { rotateSigningSecret } from '../../domain/flows/webhook-secrets.js';
import { recordAttempt } from '../../domain/flows/deliveries.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { deliveryWorkflow, type DeliveryInput, type DeliveryResult } from '../../workflows/deliveries/delivery-workflow.js';
import { sealDeliveryRequest } from '../../domain/flows/delivery-requests.js';
import { deliveryOutcome, JITTER_RATIO, type UnsealedDeliveryInput } from '../../workflows/deliveries/delivery-starter.js';
import { DeliveryStatusKey } from '../../workflows/search-attributes.js';

const { db, temporal, receiver, shop } = useSuite({ shop: true, receiver: true, worker: true });

/** A flow with a fresh secret, an inbox on the receiver, and a payload to deliver there. */
async function arrange(inbox = randomUUID()) {
  const url = receiver.url(inbox);
  const { flowId, secret } = await shop.newFlow({ name: 'Products to ERP', eventType: 'product.updated', url, state: 'on' });
  const deliveryId = `msg_${ulid()}`;
  const eventId = `evt_${ulid()}`;
  const payload = JSON.stringify({ id: eventId, type: 'product.updated', apiVersion: 'v1', data: { name: 'Áo thun' } });
  const request = { shopId: shop.shopId, flowId, eventId, eventType: 'product.updated', deliveryId, url, payload };
  return { shopId: shop.shopId, flowId, secret, deliveryId, eventId, payload, inbox, url, request };
}

/** Runs a delivery to its end: its result, its `DeliveryStatus`, and how the run closed in Temporal (status, failure message). */
async function deliver(
  input: UnsealedDeliveryInput,
): Promise<{ result: DeliveryResult; status: string | undefined; run: { status: string; failure?: string }; timersMs: number[] }> {
  const workflowId = `delivery:${input.flowId}:${input.deliveryId}`;
  const handle = await temporal.client.workflow.start(deliveryWorkflow, {
    taskQueue: temporal.taskQueue,
    workflowId,
    args: [sealDeliveryRequest(TEST_WORKFLOW_SEAL_KEY, input, workflowId)],
  });
  const result = await deliveryOutcome(handle);
  const description = await handle.describe();
  const failure = await handle.result().then(
    () => undefined,
    (error: unknown) => (error instanceof WorkflowFailedError ? error.cause?.message : String(error)),
  );
  // The waits the run set between attempts, as its history holds them (not as requests happened to arrive).
  const timersMs = await timersOf(handle);
  return {
    result,
    status: description.typedSearchAttributes.get(DeliveryStatusKey),
    run: { status: description.status.name, ...(failure ? { failure } : {}) },
    timersMs,
  };
}

describe('webhook delivery workflow on the real Temporal server', () => {
  it('signs by Standard Webhooks so that the library’s own verify accepts it', async () => {
    const { secret, deliveryId, payload, inbox, request: input } = await arrange();
    const { result, status, run } = await deliver(input);

    expect(result.status).toBe('delivered');
    expect(status).toBe('delivered');
    expect(run).toEqual({ status: 'COMPLETED' });
    const [request] = receiver.received(inbox);
    expect(request?.body).toBe(payload);
    expect(request?.headers['webhook-id']).toBe(deliveryId);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['user-agent']).toMatch(/^Shopflow-Webhooks\/\d+\.\d+\.\d+$/);
    const headers = request!.headers as Record<string, string>;
    expect(new Webhook(secret).verify(request!.body, headers)).toEqual(JSON.parse(payload));
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(request!.body, headers)).toThrow();
  });

  it('posts once when the attempt cannot be recorded at first: recording waits for the database, the webhook is not sent again', async () => {
    const { flowId, deliveryId, inbox, request } = await arrange();
    await db.admin`revoke insert on delivery_attempts from shopflow_app`;
    try {
      const handle = await temporal.client.workflow.start(deliveryWorkflow, {
        taskQueue: temporal.taskQueue,
        workflowId: `delivery:${flowId}:${deliveryId}`,
        args: [sealDeliveryRequest(TEST_WORKFLOW_SEAL_KEY, { ...request }, `delivery:${flowId}:${deliveryId}`)],
      });
      await receiver.waitFor(inbox, 1);
      // Long enough for a few failed recording tries.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await db.admin`grant insert on delivery_attempts to shopflow_app`;
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'delivered', attempts: [{ statusCode: 200, verdict: 'delivered' }] });
    } finally {
      await db.admin`grant insert on delivery_attempts to shopflow_app`;
    }
    expect(receiver.received(inbox)).toHaveLength(1);
    const recorded = await db.admin<{ statusCode: number; status: string }[]>`
      select a.status_code, d.status from delivery_attempts a join deliveries d using (delivery_id) where a.delivery_id = ${deliveryId}`;
    expect(recorded).toEqual([{ statusCode: 200, status: 'delivered' }]);
  });

  it('keeps an attempt recorded twice (inline, then by the workflow after a late answer) as one row', async () => {
    const { shopId, flowId, eventId, deliveryId } = await arrange();
    const delivery = { shopId, flowId, eventId, eventType: 'product.updated', deliveryId, workflowId: `delivery:${flowId}:${deliveryId}` };
    const attempt = {
      attemptedAt: new Date().toISOString(),
      statusCode: 200,
      durationMs: 12,
      responseExcerpt: 'ok',
      error: null,
      verdict: 'delivered' as const,
    };
    const later = { ...attempt, attemptedAt: new Date(Date.now() + 5_000).toISOString(), statusCode: 500, verdict: 'retry' as const };
    for (const recorded of [attempt, attempt, later]) await withShop(db.app, shopId, (tx) => recordAttempt(tx, delivery, recorded));
    const rows = await db.admin<{ statusCode: number }[]>`
      select status_code from delivery_attempts where delivery_id = ${deliveryId} order by attempted_at`;
    expect(rows).toEqual([{ statusCode: 200 }, { statusCode: 500 }]);
  });

  it('retries a 500 once after about 5 s, then stops at the 200: two attempts, one webhook-id', async () => {
    const { deliveryId, inbox, request } = await arrange();
    receiver.respondWith(inbox, [{ status: 500 }, { status: 200 }]);
    const { result, timersMs } = await deliver(request);

    const requests = receiver.received(inbox);
    expect(requests).toHaveLength(2);
    expect(result.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 200]);
    expect(new Set(requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([deliveryId]));
    // One wait, the schedule's first 5 s within its jitter, as the run set it.
    expect(timersMs).toHaveLength(1);
    expect(timersMs[0]).toBeGreaterThanOrEqual(5_000 * (1 - JITTER_RATIO));
    expect(timersMs[0]).toBeLessThanOrEqual(5_000 * (1 + JITTER_RATIO));
    // Each attempt is signed afresh, with its own timestamp (whole seconds, at least the wait apart).
    const [first, second] = requests.map((request) => Number(request.headers['webhook-timestamp']));
    expect(second! - first!).toBeGreaterThanOrEqual(Math.floor((timersMs[0]! - 1_000) / 1_000));
  });

  it('keeps retrying a 400 through the whole schedule, then reports failed', async () => {
    const { inbox, request } = await arrange();
    receiver.respondWith(inbox, [{ status: 400, body: '{"error":"bad"}' }]);
    const { result, status, run } = await deliver({ ...request, retryDelaysMs: [100, 100, 100] });

    expect(receiver.received(inbox)).toHaveLength(4);
    expect(result.status).toBe('failed');
    expect(status).toBe('failed');
    // Failed in Temporal's own status, with what an operator needs to read.
    expect(run).toEqual({ status: 'FAILED', failure: 'receiver answered 400 on attempt 4, the last of the schedule' });
    expect(result.attempts[0]).toMatchObject({ statusCode: 400, verdict: 'retry', responseExcerpt: '{"error":"bad"}' });
  });

  it('stops at a 410 Gone without retrying and switches the HTTP-send block off', async () => {
    const { shopId, flowId, inbox, request } = await arrange();
    receiver.respondWith(inbox, [{ status: 410 }]);
    const { result, status, run } = await deliver({ ...request, retryDelaysMs: [100, 100] });

    expect(receiver.received(inbox)).toHaveLength(1);
    expect(result.status).toBe('gone');
    expect(status).toBe('gone');
    expect(run).toEqual({ status: 'FAILED', failure: "receiver answered 410 Gone on attempt 1: the flow's sending was switched off" });
    const [flow] = await withShop(
      db.app,
      shopId,
      (tx) => tx<{ httpEnabled: boolean; state: string }[]>`select http_enabled, state from flows where id = ${flowId}`,
    );
    expect(flow).toEqual({ httpEnabled: false, state: 'on' });
    const log = await withShop(
      db.app,
      shopId,
      (tx) => tx`select 1 from shop_log where action = 'flow.http_send_switched_off' and subject_id = ${flowId}`,
    );
    expect(log).toHaveLength(1);
  });

  it('treats a 3xx as a failure and does not follow the redirect', async () => {
    const { inbox, request } = await arrange();
    const elsewhere = `${inbox}-elsewhere`;
    receiver.respondWith(inbox, [{ status: 302, headers: { location: receiver.url(elsewhere) } }, { status: 204 }]);
    const { result } = await deliver({ ...request, retryDelaysMs: [100] });

    expect(result.attempts.map((attempt) => [attempt.statusCode, attempt.verdict])).toEqual([
      [302, 'retry'],
      [204, 'delivered'],
    ]);
    expect(receiver.received(elsewhere)).toHaveLength(0);
  });

  it('honours Retry-After of a 503 when it is longer than the scheduled wait', async () => {
    const { inbox, request } = await arrange();
    receiver.respondWith(inbox, [{ status: 503, headers: { 'retry-after': '2' } }, { status: 200 }]);
    const { result } = await deliver({ ...request, retryDelaysMs: [100, 100_000] });

    expect(result.attempts[0]?.retryAfterSeconds).toBe(2);
    const [first, second] = receiver.received(inbox);
    expect(second!.receivedAt.getTime() - first!.receivedAt.getTime()).toBeGreaterThanOrEqual(2_000 - 100);
  });

  it('signs with both secrets during a rotation, so either verifies', async () => {
    const { shopId, flowId, secret: oldSecret, inbox, request: input } = await arrange();
    const newSecret = await withShop(db.app, shopId, (tx) => rotateSigningSecret(tx, flowId, null, testSecretsKey));
    await deliver(input);

    const request = receiver.received(inbox)[0]!;
    const headers = request.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(newSecret).verify(request.body, headers)).toBeTruthy();
    expect(new Webhook(oldSecret).verify(request.body, headers)).toBeTruthy();
  });

  it('counts an unreachable or refused destination as a failed attempt', async () => {
    const { request } = await arrange();
    const { result } = await deliver({ ...request, url: 'http://localhost:1/plain-http', retryDelaysMs: [] });
    expect(result.status).toBe('failed');
    expect(result.attempts[0]).toMatchObject({ statusCode: null, verdict: 'retry', error: expect.stringMatching(/https/) });
  });
});

describe('a delivery request the worker did not get from Shopflow (Temporal is an untrusted transport)', () => {
  /** Starts the workflow with exactly `input`, as anyone who reaches the Temporal frontend could. */
  async function startRaw(input: DeliveryInput, workflowId: string) {
    const handle = await temporal.client.workflow.start(deliveryWorkflow, {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [input],
    });
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );
    return failure;
  }

  async function expectRefused(input: DeliveryInput, inbox: string, deliveryId: string, workflowId = `forged:${randomUUID()}`) {
    const failure = await startRaw(input, workflowId);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(String((failure as WorkflowFailedError).cause?.message)).toMatch(/not sealed with this server's key for it; nothing was done/);
    expect(receiver.received(inbox)).toHaveLength(0);
    expect(await db.admin`select 1 from deliveries where delivery_id = ${deliveryId}`).toHaveLength(0);
  }

  it('sends nothing for a request sealed with another key, and records nothing', async () => {
    const { deliveryId, inbox, request } = await arrange();
    const run = `forged:${randomUUID()}`;
    const forged = sealDeliveryRequest('someone-elses-key-0123456789abcdef0123', { ...request }, run);
    await expectRefused(forged, inbox, deliveryId, run);
  });

  it('sends nothing for a request without a seal', async () => {
    const { deliveryId, inbox, request } = await arrange();
    await expectRefused({ ...request, seal: '' }, inbox, deliveryId);
  });

  it('sends nothing when any sealed field was changed on the way: the address, the body, the flow or the retry schedule', async () => {
    const { deliveryId, inbox, request } = await arrange();
    // Each forgery runs under the id the genuine request was sealed for, as a copy of it would.
    const run = `genuine:${randomUUID()}`;
    const genuine = sealDeliveryRequest(TEST_WORKFLOW_SEAL_KEY, { ...request, retryDelaysMs: [100] }, run);
    const other = await arrange();
    await expectRefused({ ...genuine, url: other.url }, other.inbox, deliveryId, run);
    await expectRefused({ ...genuine, payload: '{"id":"evt_forged"}' }, inbox, deliveryId, run);
    await expectRefused({ ...genuine, flowId: other.flowId }, inbox, deliveryId, run);
    await expectRefused({ ...genuine, retryDelaysMs: [0, 0, 0, 0, 0] }, inbox, deliveryId, run);
    // Copied into another run, it does not verify there.
    await expectRefused(genuine, inbox, deliveryId);
    // The genuine request itself goes through, in its own run.
    const handle = await temporal.client.workflow.start(deliveryWorkflow, {
      taskQueue: temporal.taskQueue,
      workflowId: run,
      args: [genuine],
    });
    expect((await handle.result()).status).toBe('delivered');
    expect(receiver.received(inbox)).toHaveLength(1);
  });
});
