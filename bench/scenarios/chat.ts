import { pageTokenOwner } from '../../adapters/chat-platform/page-ownership.js';
import { createChatPlatformAdapter } from '../../adapters/chat-platform/platform-adapter.js';
import type { Sql } from '../../db/client.js';
import { createApplication, createKey, createShop } from '../../domain/access/index.js';
import { linkPage } from '../../domain/chat/index.js';
import { withShop } from '../../domain/kernel/index.js';
import type { BenchContext } from '../context.js';
import { cpuBetween, cpuPer, cpuSnapshot, formatCpu } from '../cpu-usage.js';
import { loadSettings } from '../../config/settings.js';
import { createOutboundAgent } from '../../adapters/outbound/outbound-http.js';

const CUSTOMERS = 100;
/** 10 applications × 2 keys × 60 sends a minute: the warm-up and the sends without echoes, then with, fit one minute's message counters. */
const SENDS = 500;
const WARM_UP_SENDS = 100;
const INBOUND = 1_000;

interface Rate {
  count: number;
  seconds: number;
  perSecond: number;
}

/** Runs `count` calls over `concurrency` workers; the rate of the whole batch. */
async function batch(count: number, concurrency: number, call: (index: number) => Promise<void>): Promise<Rate> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await call(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { count, seconds: Number(seconds.toFixed(2)), perSecond: Number((count / seconds).toFixed(1)) };
}

async function post(url: string, body: object, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${url}: HTTP ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

const ECHO_VERIFY_TOKEN = 'bench-chat-verify-token';

/** Subscribes the app to `message_echoes` too, as an app does through the Graph API (the API answers the check). */
async function subscribeEchoes(platformUrl: string, app: { id: string; secret: string }, callbackUrl: string): Promise<void> {
  await post(
    `${platformUrl}/v21.0/${app.id}/subscriptions`,
    { object: 'page', callback_url: callbackUrl, verify_token: ECHO_VERIFY_TOKEN, fields: ['messages', 'message_echoes', 'feed'] },
    { authorization: `Bearer ${app.id}|${app.secret}` },
  );
}

/**
 * Chat: sends per second through `POST /conversations/{id}/messages` (key, shop transaction, the
 * platform's Send API, the record and its event) against the same sends straight to the simulator's
 * Send API, and against the floor of the same work without the framework (bench/bare-chat-server.ts);
 * the same sends with the platform's echoes subscribed; and inbound customer messages per second from
 * the platform's webhook to their stored `message.received` event.
 */
export async function chatScenario(context: BenchContext, sql: Sql) {
  const platformUrl = await context.startServer('chat-simulator', 'bench/chat-simulator-server.ts');
  // No shipments' worker: chat needs none, and the Temporal server may not run in this scenario.
  const apiUrl = await context.startServer('api', 'api/server.ts', {
    CHAT_PLATFORM_URL: platformUrl,
    CHAT_VERIFY_TOKEN: ECHO_VERIFY_TOKEN,
    SHIPMENT_WORKER: 'off',
  });
  const bareUrl = await context.startServer('bare-chat', 'bench/bare-chat-server.ts', { CHAT_PLATFORM_URL: platformUrl });
  try {
    const control = async <T>(path: string, body: object) =>
      (await (
        await fetch(`${platformUrl}/_control${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as T;
    const app = await control<{ id: string; secret: string }>('/apps', {
      secret: 'chat-simulator-app-secret',
      callbackUrl: `${apiUrl}/platform/chat/webhook`,
    });
    const page = await control<{ id: string; accessTokens: string[] }>('/pages', {
      name: 'Bench page',
      appId: app.id,
      sendCapPerMinute: 1_000_000,
    });
    const shop = await createShop(sql, { slug: `bench-chat-${Date.now().toString(36)}`, name: 'Chat benchmark' });
    const { pageId, keys } = await withShop(sql, shop.id, async (tx) => {
      const [row] = await tx<{ id: string }[]>`insert into pages (shop_id, name) values (${shop.id}, 'Bench page') returning id`;
      await linkPage(
        tx,
        shop.id,
        { pageId: row!.id, platformPageId: page.id, accessToken: page.accessTokens[0]! },
        loadSettings().secretsKey,
        pageTokenOwner(createChatPlatformAdapter({ baseUrl: platformUrl, dispatcher: createOutboundAgent({ allowLoopback: true }) })),
      );
      const created: string[] = [];
      for (let index = 0; index < 10; index += 1) {
        const permissions = ['social.pages.read', 'social.conversations.read', 'social.messages.send'];
        const application = await createApplication(tx, shop.id, { name: `Chat ${index}`, permissions, pages: [row!.id] }, null);
        created.push(application.key, (await createKey(tx, application.applicationId, null)).key);
      }
      return { pageId: row!.id, keys: created };
    });
    const psids: string[] = [];
    for (let index = 0; index < CUSTOMERS; index += 1)
      psids.push((await control<{ psid: string }>(`/pages/${page.id}/customers`, { name: `Customer ${index}` })).psid);

    const eventsOf = async (type: string) =>
      (await withShop(sql, shop.id, (tx) => tx<{ count: number }[]>`select count(*)::int as count from events where type = ${type}`))[0]!
        .count;
    const storedEvents = () => eventsOf('message.received');
    const inboundStart = performance.now();
    const written = await batch(INBOUND, context.connections, (index) =>
      post(`${platformUrl}/_control/customers/${psids[index % CUSTOMERS]}/messages`, { text: `question ${index}` }),
    );
    while ((await storedEvents()) < INBOUND) await new Promise((resolve) => setTimeout(resolve, 50));
    const inboundSeconds = (performance.now() - inboundStart) / 1000;
    const inbound = {
      count: INBOUND,
      seconds: Number(inboundSeconds.toFixed(2)),
      perSecond: Number((INBOUND / inboundSeconds).toFixed(1)),
      written,
    };

    const conversations = await withShop(
      sql,
      shop.id,
      (tx) => tx<{ id: string; recipient: string }[]>`
        select conversation.id, customer.platform_customer_id as recipient
        from chat_conversations conversation join chat_customers customer on customer.id = conversation.chat_customer_id
        where conversation.page_id = ${pageId}`,
    );
    const relayUrl = await context.startServer('relay-chat', 'bench/relay-chat-server.ts', {
      CHAT_PLATFORM_URL: platformUrl,
      PAGE_ACCESS_TOKEN: page.accessTokens[0]!,
      RELAY_RECIPIENTS: JSON.stringify(Object.fromEntries(conversations.map(({ id, recipient }) => [id, recipient]))),
    });
    const sendDirectly = () =>
      batch(SENDS, context.connections, (index) =>
        post(
          `${platformUrl}/v21.0/me/messages`,
          { recipient: { id: psids[index % CUSTOMERS] }, messaging_type: 'RESPONSE', message: { text: `answer ${index}` } },
          { authorization: `Bearer ${page.accessTokens[0]}` },
        ),
      );
    /** `count` sends through a server of `POST /conversations/{id}/messages` under `base`, with the CPU per send. */
    const sendThrough = async (base: string, count = SENDS) => {
      const before = cpuSnapshot();
      const rate = await batch(count, context.connections, (index) =>
        post(
          `${base}/conversations/${conversations[index % conversations.length]!.id}/messages`,
          { text: `answer ${index}` },
          { authorization: `Bearer ${keys[index % keys.length]}` },
        ),
      );
      // Echoes, when subscribed, follow within milliseconds: they are part of what a send costs then.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return { ...rate, cpuMsPerSend: cpuPer(cpuBetween(before, cpuSnapshot()), count) };
    };
    const api = `${apiUrl}/api/open/v1`;
    // The three servers warmed alike: their first sends compile what the measured ones run.
    await sendThrough(api, WARM_UP_SENDS);
    await sendThrough(bareUrl, WARM_UP_SENDS);
    await sendThrough(relayUrl, WARM_UP_SENDS);
    // The machine's pace drifts between phases: the baselines run before and after the API's sends,
    // each ratio against the two's mean. The floor is the same work (the key's count, the domain's send)
    // without the framework around it; the relay, a server that only passes each send on.
    const direct = await sendDirectly();
    const relay = await sendThrough(relayUrl);
    const floor = await sendThrough(bareUrl);
    const throughApi = await sendThrough(api);
    const floorAfter = await sendThrough(bareUrl);
    const relayAfter = await sendThrough(relayUrl);
    const directAfter = await sendDirectly();
    const directRate = (direct.perSecond + directAfter.perSecond) / 2;
    const relayRate = (relay.perSecond + relayAfter.perSecond) / 2;
    const floorRate = (floor.perSecond + floorAfter.perSecond) / 2;
    const ratio = Number((throughApi.perSecond / directRate).toFixed(2));
    // A shop that reads its page's replies from the platform's inbox subscribes to echoes: each send comes back.
    await subscribeEchoes(platformUrl, app, `${apiUrl}/platform/chat/webhook`);
    const withEchoes = await sendThrough(api);
    console.log(
      `Send API straight to the simulator:        ${direct.perSecond} sends/s before, ${directAfter.perSecond} after (${SENDS} each, in ${direct.seconds} and ${directAfter.seconds} s)`,
    );
    console.log(`POST /conversations/{id}/messages (API):   ${throughApi.perSecond} sends/s (${SENDS} in ${throughApi.seconds} s)`);
    console.log(`${''.padEnd(43)}CPU per send: ${formatCpu(throughApi.cpuMsPerSend)}`);
    console.log(`ratio API / direct (their mean): ${ratio} (throughput; goal ≥ 0.5)`);
    console.log(
      `a relay (bench/relay-chat-server.ts):      ${relay.perSecond} sends/s before, ${relayAfter.perSecond} after (${SENDS} each, in ${relay.seconds} and ${relayAfter.seconds} s)`,
    );
    console.log(`${''.padEnd(43)}CPU per send: ${formatCpu(relay.cpuMsPerSend)} before, ${formatCpu(relayAfter.cpuMsPerSend)} after`);
    console.log(
      `ratio relay / direct (their means): ${(relayRate / directRate).toFixed(2)} (what no server that passes sends on exceeds on these cores)`,
    );
    console.log(
      `the floor (bench/bare-chat-server.ts):     ${floor.perSecond} sends/s before, ${floorAfter.perSecond} after (${SENDS} each, in ${floor.seconds} and ${floorAfter.seconds} s)`,
    );
    console.log(`${''.padEnd(43)}CPU per send: ${formatCpu(floor.cpuMsPerSend)} before, ${formatCpu(floorAfter.cpuMsPerSend)} after`);
    console.log(
      `ratios (their means): floor / direct ${(floorRate / directRate).toFixed(2)}, API / floor ${(throughApi.perSecond / floorRate).toFixed(2)}`,
    );
    console.log(`the same, echoes subscribed:               ${withEchoes.perSecond} sends/s (${SENDS} in ${withEchoes.seconds} s)`);
    console.log(`${''.padEnd(43)}CPU per send, its echo included: ${formatCpu(withEchoes.cpuMsPerSend)}`);
    console.log(`inbound customer message → message.received stored: ${inbound.perSecond} messages/s (${INBOUND} in ${inbound.seconds} s)`);
    return { sends: { direct, directAfter, relay, relayAfter, throughApi, ratio, floor, floorAfter, withEchoes }, inbound };
  } finally {
    await context.stopServers();
  }
}
