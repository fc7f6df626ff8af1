import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { createSql } from '../db/client.js';
import { writeEvent } from '../domain/events/index.js';
import { withShop } from '../domain/kernel/index.js';
import { bigProduct } from './scenarios/neighbours-noise.js';
import { eachAtMost, postFromAddress } from './load.js';
import { waitFor } from '../scripts/bootstrap/ports.js';

/**
 * Shop A of the neighbours benchmark (bench/scenarios/neighbours.ts) as a process: its clients and
 * its admin, who in life work from machines of their own. It runs below the platform's priority
 * (nice 10), so the generator's own work (a product of 2,048 variants built, a hundred connections
 * opened at once) does not take the platform's cores from under shop B; what it sends is the same.
 * Its scheduling group is niced too: Linux with autogroups shares the cores among sessions first, and
 * this process leads a session of its own (ProcessGroup starts each detached), so a nice of its
 * threads alone changed nothing against the platform's processes.
 * Ready once it prints "noisy shop ready"; SIGUSR1 starts everything at once, SIGTERM ends it, and it
 * prints "noisy shop done" with what it sent (NoisyShopSent).
 */
export interface NoisyShopPlan {
  appUrl: string;
  apiPort: number;
  shopId: string;
  slug: string;
  email: string;
  password: string;
  failingFlowId: string;
  /** Which noise: `login` (a flood from 100 addresses), `big` (a big product every 2 s), `burst` (2,000 failing deliveries). */
  noise: string[];
}

/**
 * What A sent: the login flood's answers by status, its big products, when its 2,000 events were all
 * written (ms in), and the status its admin's recovery batch was answered with.
 */
export interface NoisyShopSent {
  loginAnswers: Record<string, number>;
  bigProducts: number;
  burstWrittenMs: number;
  recoveryAnswer: number;
}

const plan = JSON.parse(process.env.NOISY_SHOP_PLAN!) as NoisyShopPlan;
setPriority(10);
try {
  writeFileSync('/proc/self/autogroup', '10');
} catch {
  // No autogroups (a kernel without them, or a container that hides them): the nice above is the priority.
}
const sql = createSql(plan.appUrl, { max: 4, applicationName: 'shopflow-bench-noisy-shop' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const emit = (type: string, data: Record<string, unknown>) =>
  withShop(sql, plan.shopId, (tx) =>
    writeEvent(tx, { shopId: plan.shopId, type: type as 'product.updated', resourceId: randomUUID(), data }),
  );
const api = `http://127.0.0.1:${plan.apiPort}`;

let noisy = true;
const sent: NoisyShopSent = { loginAnswers: {}, bigProducts: 0, burstWrittenMs: 0, recoveryAnswer: 0 };

/** A's admin logging in, from her usual browser when `browserMark` (its `shopflow_device` cookie) is given. */
const adminLogIn = (browserMark?: string) =>
  fetch(`${api}/api/admin/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(browserMark ? { cookie: browserMark } : {}) },
    body: JSON.stringify({ shop: plan.slug, email: plan.email, password: plan.password }),
  });
// She has logged in from her browser before (once the API is up): during the flood at her shop it is the one she gets in with.
await waitFor('the API', async () => (await fetch(`${api}/healthz`).catch(() => undefined))?.ok === true, 90_000);
const usualBrowser = /shopflow_device=[^;]+/.exec((await adminLogIn()).headers.get('set-cookie') ?? '')?.[0];

async function everythingAtOnce(): Promise<void> {
  const started = Date.now();
  const flood = Array.from({ length: plan.noise.includes('login') ? 100 : 0 }, async (_, n) => {
    // Each address at the login's own limit: 30 attempts a minute, 50 a second from the hundred.
    for (let attempt = 0; noisy; attempt++) {
      await sleep(Math.max(0, started + attempt * 2_000 + n * 20 - Date.now()));
      const body = JSON.stringify({ shop: plan.slug, email: plan.email, password: `guess ${n}` });
      const { status } = await postFromAddress(`127.0.1.${n + 1}`, plan.apiPort, '/api/admin/session', body);
      sent.loginAnswers[status] = (sent.loginAnswers[status] ?? 0) + 1;
    }
  });
  const bigProducts = (async () => {
    while (noisy && plan.noise.includes('big')) {
      await emit('product.updated', bigProduct());
      sent.bigProducts += 1;
      await sleep(2_000);
    }
  })();
  const failing = eachAtMost(
    Array.from({ length: plan.noise.includes('burst') ? 20 : 0 }, (_, batch) => batch),
    2,
    (batch) =>
      withShop(sql, plan.shopId, async (tx) => {
        for (let index = 0; index < 100; index++)
          await writeEvent(tx, {
            shopId: plan.shopId,
            type: 'order.created',
            resourceId: randomUUID(),
            data: { id: randomUUID(), code: `${batch}-${index}` },
          });
      }).then(() => undefined),
  ).then(() => void (sent.burstWrittenMs = Date.now() - started));
  const poison = emit('customer.created', { id: randomUUID(), name: 'Poison' });
  const recovery = (async () => {
    const login = await adminLogIn(usualBrowser);
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const answer = await fetch(`${api}/api/admin/flows/${plan.failingFlowId}/recovery`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
      body: JSON.stringify({ since: new Date(Date.now() - 3_600_000).toISOString(), perMinute: 600 }),
    });
    sent.recoveryAnswer = answer.status;
  })();
  await Promise.all([...flood, bigProducts, failing, poison, recovery]);
}

// Nothing else holds the process open while it waits for its signals.
const waiting = setInterval(() => undefined, 60_000);
let running: Promise<void> | undefined;
process.once('SIGUSR1', () => (running = everythingAtOnce()));
process.once('SIGTERM', () => {
  noisy = false;
  void (async () => {
    await running;
    await sql.end();
    clearInterval(waiting);
    console.log(`noisy shop done ${JSON.stringify(sent)}`);
    process.exit(0);
  })();
});
console.log('noisy shop ready');
