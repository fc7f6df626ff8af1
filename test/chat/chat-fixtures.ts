import { randomBytes } from 'node:crypto';
import type { Sql } from '../../db/client.js';
import { createApplication } from '../../domain/access/index.js';
import { pageTokenOwner } from '../../adapters/chat-platform/page-ownership.js';
import { createChatPlatformAdapter, type ChatPlatformAdapter } from '../../adapters/chat-platform/platform-adapter.js';
import { createOutboundAgent } from '../../adapters/outbound/outbound-http.js';
import { testOutboundPolicy } from '../support/receiver.js';
import { linkPage, type PageTokenOwner } from '../../domain/chat/index.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import type { RunningChatPlatform } from '../../simulators/chat/index.js';
import { testSecretsKey, type ShopFixture } from '../support/fixtures.js';

/** The chat platform adapter as the API builds it, through the outbound policy of the test settings. */
export function testChatAdapter(baseUrl: string, timeoutMs?: number): ChatPlatformAdapter {
  return createChatPlatformAdapter({ baseUrl, dispatcher: createOutboundAgent(testOutboundPolicy()), ...(timeoutMs ? { timeoutMs } : {}) });
}

/** The simulator's own answer to whose token it is, as the API and the CLI ask it. */
export const simulatorOwnerOf = (chat: RunningChatPlatform): PageTokenOwner => pageTokenOwner(testChatAdapter(chat.url));

/**
 * A page of the shop (access's table, written as a fixture) linked to a platform page with a token.
 * Without `ownerOf` the token is taken as the page's, for tests of what follows a link (no platform
 * runs there); a simulator's tokens are proven by it (`simulatorOwnerOf`).
 */
export async function linkedPage(
  sql: Sql,
  shopId: string,
  options: { name?: string; platformPageId?: string; accessToken?: string; ownerOf?: PageTokenOwner } = {},
) {
  const platformPageId = options.platformPageId ?? `${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
  const accessToken = options.accessToken ?? `EAA${randomBytes(24).toString('hex')}`;
  const ownerOf = options.ownerOf ?? (async () => platformPageId);
  const pageId = await withShop(sql, shopId, async (tx) => {
    const [page] = await tx<
      { id: string }[]
    >`insert into pages (shop_id, name) values (${shopId}, ${options.name ?? 'Fanpage'}) returning id`;
    await linkPage(tx, shopId, { pageId: page!.id, platformPageId, accessToken }, testSecretsKey, ownerOf);
    return page!.id;
  });
  return { pageId, platformPageId, accessToken };
}

export const cursorBinding = (shopId: string, list: string) => ({ secret: 'chat-test-cursor-secret', scope: { shopId, list } });

/** Every chat permission a key may hold. */
export const CHAT_KEY_PERMISSIONS = ['social.pages.read', 'social.conversations.read', 'social.messages.send'];

/** A key of the shop's application on `pageIds` (the pages its creator chose). */
export async function chatKey(sql: Sql, shop: ShopFixture, pageIds: string[], permissions = CHAT_KEY_PERMISSIONS): Promise<string> {
  const created = await withShop(sql, shop.shopId, (tx) =>
    createApplication(tx, shop.shopId, { name: `Chat ${randomBytes(3).toString('hex')}`, permissions, pages: pageIds }, shop.ownerId),
  );
  return created.key;
}

/**
 * A simulator page linked to a new page of the shop, and one customer per name who wrote `text`
 * to it; returns once the webhooks are recorded, with each customer's conversation id.
 */
export async function simulatorPage(sql: Sql, shopId: string, chat: RunningChatPlatform, customers: string[] = ['Lan Nguyen']) {
  const { page, accessToken } = chat.platform.createPage({ name: 'Shop page' });
  const { pageId } = await linkedPage(sql, shopId, { platformPageId: page.id, accessToken, ownerOf: simulatorOwnerOf(chat) });
  const written = customers.map((name) => {
    const customer = chat.platform.createCustomer(page.id, { name });
    chat.platform.customerWrites(customer.psid, { text: `Hello from ${name}` });
    return customer;
  });
  await chat.platform.webhooks.settled();
  const conversations = await withShop(sql, shopId, (tx) =>
    Promise.all(
      written.map(async (customer) => {
        const [row] = await tx<{ id: string }[]>`
          select c.id from chat_conversations c join chat_customers k on k.id = c.chat_customer_id
          where k.page_id = ${pageId} and k.platform_customer_id = ${customer.psid}`;
        return { psid: customer.psid, conversationId: row!.id };
      }),
    ),
  );
  return { pageId, platformPageId: page.id, accessToken, customers: conversations };
}
