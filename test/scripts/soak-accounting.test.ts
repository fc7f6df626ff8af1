import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { customerCalls } from '../../bench/soak/customer-calls.js';
import { Receipts } from '../../bench/soak/receipts.js';
import { duplicatesByKill } from '../../bench/soak/report.js';
import { freePort } from '../../scripts/bootstrap/ports.js';
import type { ReceivedRequest, WebhookReceiver } from '../../simulators/webhook-receiver.js';

// `npm run soak` runs for many minutes outside the suite; its counting is checked here, so that a
// soak's "0 lost" cannot come from a mistake in the soak itself.

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function receiptOf(webhookId: string, eventId: string): ReceivedRequest {
  return { receivedAt: new Date(), path: 'inbox', headers: { 'webhook-id': webhookId }, body: JSON.stringify({ id: eventId }) };
}

describe('the soak inbox', () => {
  it('counts distinct webhook-ids as delivered, the rest as duplicates, and names the events that never arrived', () => {
    const requests: ReceivedRequest[] = [receiptOf('msg_1', 'evt_1'), receiptOf('msg_1', 'evt_1')];
    const receipts = new Receipts({ received: () => requests } as unknown as WebhookReceiver, 'inbox');
    receipts.scan();
    requests.push(receiptOf('msg_2', 'evt_2'), receiptOf('msg_3', 'evt_2'));
    receipts.scan();

    expect(receipts.delivered).toBe(3);
    expect(receipts.duplicates).toBe(1);
    expect(receipts.mismatchedIds).toBe(1);
    expect(receipts.missing(['evt_1', 'evt_2', 'evt_3'])).toEqual(['evt_3']);
  });
});

describe('the soak duplicates', () => {
  it('are each put down to the kill that caused them, the others to no kill', () => {
    const started = 1_000_000;
    const kills = [
      { component: 'worker-a' as const, atMs: 10_000, readyAfterMs: 8_000 },
      { component: 'temporal' as const, atMs: 100_000, readyAfterMs: 30_000 },
    ];
    const duplicate = (firstMs: number, atMs: number) => ({ firstAt: started + firstMs, at: started + atMs });

    const counts = duplicatesByKill(
      [
        // POSTed, then the worker died before its answer: run again on another worker.
        duplicate(9_500, 21_000),
        // POSTed while the server was down (its answer refused), run again once it was back.
        duplicate(110_000, 131_000),
        // Long after the worker was back, before the server's kill: not a kill's.
        duplicate(40_000, 60_000),
      ],
      kills,
      started,
    );

    expect(counts).toEqual({ 'worker-a': 1, temporal: 1, 'no kill': 1 });
  });
});

describe('the soak calls', () => {
  it('send a call whose instance is down to the other one with the same Idempotency-Key and API key', async () => {
    const seen: { key: string | undefined; authorization: string | undefined }[] = [];
    const live = createServer((request, response) => {
      seen.push({ key: request.headers['idempotency-key'] as string, authorization: request.headers.authorization });
      request.resume();
      // The first request is answered as a key whose first request is still running; the retry is the replay.
      if (seen.length === 1) response.writeHead(409, { 'retry-after': '0' }).end('{}');
      else response.writeHead(201, { 'idempotent-replayed': 'true' }).end('{}');
    });
    servers.push(live);
    await new Promise<void>((resolve) => live.listen(0, '127.0.0.1', resolve));
    const down = `http://127.0.0.1:${await freePort(4900)}`;

    // Index 0 goes to the first instance (down), then fails over to the live one.
    const { counts, call } = customerCalls([down, `http://127.0.0.1:${(live.address() as AddressInfo).port}`], ['key-a', 'key-b'], 'run');
    await call(0);

    expect(counts).toMatchObject({ created: 1, replayed: 1, failedOver: 1, retried: 1, notCreated: 0 });
    expect(seen).toEqual([
      { key: 'soak-run-0', authorization: 'Bearer key-a' },
      { key: 'soak-run-0', authorization: 'Bearer key-a' },
    ]);
  });
});
