import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useSuite } from '../support/suite.js';
import { expectProblem } from '../support/problems.js';
import { CHAT_WEBHOOK_PATH, chatWebhookRoutes } from '../../api/routes/chat/chat-webhook.js';
import { carrierCallbackRoutes } from '../../api/routes/shipments/carrier-callbacks.js';
import type { ShipmentStarter } from '../../workflows/shipments/shipment-starter.js';

/** Routes under /throttled count against the same per-address counter, with a limit of 3 a minute. */
const LIMIT = 3;
const VERIFY_TOKEN = 'platform-verify-token-0123456789';

const { db, api } = useSuite({
  api: {
    chatWebhook: { appSecret: 'platform-test-app-secret', verifyToken: VERIFY_TOKEN },
    routes: (app, db) => {
      const throttled = { sql: db.app, throttle: { perMinute: LIMIT } };
      // No callback here reaches a shipment: an unknown secret is 404 before anything is started.
      void app.register(carrierCallbackRoutes, { prefix: '/throttled', ...throttled, shipments: {} as ShipmentStarter });
      void app.register(chatWebhookRoutes, { prefix: '/throttled', ...throttled, appSecret: 'platform-test-app-secret' });
    },
  },
});

const secret = () => randomBytes(24).toString('base64url');

async function send(method: 'GET' | 'POST', url: string, address = '127.0.0.1'): Promise<Response> {
  const reply = await api.app.inject({ method, url, payload: method === 'POST' ? {} : undefined, remoteAddress: address });
  return new Response(reply.body, {
    status: reply.statusCode,
    headers: Object.entries(reply.headers).map(([name, value]) => [name, String(value)]),
  });
}

/** The counters use fixed one-minute windows (database clock): start a sequence only with `seconds` of it left. */
async function awaitWindowRoom(seconds: number): Promise<void> {
  const [row] = await db.admin<{ left: number }[]>`select 60 - extract(second from clock_timestamp())::float8 as left`;
  if (row!.left < seconds) await sleep((row!.left + 0.2) * 1000);
}

describe('the platform callbacks in the request log', () => {
  it("logs a carrier callback's path with its secret redacted, however the path is spelt", async () => {
    const first = secret();
    const second = secret();
    expect((await send('POST', `/platform/carriers/callbacks/${first}`)).status).toBe(404);
    expect((await send('POST', `/platform/carriers/c%61llbacks/${second}?again=1`)).status).toBe(404);
    const logs = api.logs.join('');
    // The requests were logged (so the absence below means something).
    expect(logs.match(/\/platform\/carriers\/callbacks\/\[redacted\]/g)).toHaveLength(2);
    for (const leaked of [first, second, first.toLowerCase(), second.toLowerCase()]) expect(logs).not.toContain(leaked);
  });

  it("logs the chat webhook's subscription check without its verify token", async () => {
    const answer = await send('GET', `${CHAT_WEBHOOK_PATH}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=42`);
    expect(answer.status).toBe(200);
    const logs = api.logs.join('');
    expect(logs).toContain(`"url":"${CHAT_WEBHOOK_PATH}"`);
    expect(logs).not.toContain(VERIFY_TOKEN);
  });
});

describe('the /platform/* throttle', () => {
  it('answers 429 with Retry-After past the limit per client address, across the platform routes, and other addresses go on', async () => {
    await awaitWindowRoom(10);
    const address = '198.51.100.77';
    for (let i = 0; i < LIMIT; i++) {
      await expectProblem(await send('POST', `/throttled/platform/carriers/callbacks/${secret()}`, address), 404, 'not-found');
    }
    for (const url of [`/throttled/platform/carriers/callbacks/${secret()}`, `/throttled${CHAT_WEBHOOK_PATH}`]) {
      const refused = await send('POST', url, address);
      await expectProblem(refused, 429, 'rate-limited');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // Another address has its own counter; the routes as the app mounts them keep the generous default.
    await expectProblem(await send('POST', `/throttled/platform/carriers/callbacks/${secret()}`, '198.51.100.78'), 404, 'not-found');
    await expectProblem(await send('POST', `/platform/carriers/callbacks/${secret()}`, address), 404, 'not-found');
  });
});
