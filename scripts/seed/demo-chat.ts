import type { KeyObject } from 'node:crypto';
import { pageTokenOwner } from '../../adapters/chat-platform/page-ownership.js';
import { createChatPlatformAdapter } from '../../adapters/chat-platform/platform-adapter.js';
import type { Sql } from '../../db/client.js';
import { linkPage } from '../../domain/chat/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { createOutboundAgent } from '../../adapters/outbound/outbound-http.js';

/**
 * The demo shop's two pages on the chat simulator, each with customers who wrote. The simulator
 * keeps nothing between runs, so every run creates the pages again under the same platform ids and
 * PSIDs and links them with their new tokens (the simulator confirms each, as linking asks). A
 * customer whose conversation Shopflow already has writes again without a webhook (the platform's
 * memory, replayed), so the 24-hour window is open and nothing is recorded twice.
 */
const DEMO_CHAT = [
  {
    page: 'Demo Fashion Fanpage',
    platformPageId: '100000000000001',
    customers: [
      { psid: '200000000000001', name: 'Nguyễn Thị Mai', phone: '0912345678', text: 'Chào shop, áo sơ mi trắng còn size M không ạ?' },
      { psid: '200000000000002', name: 'Trần Quốc Bảo', text: 'Shop ơi ship về Đà Nẵng mất mấy ngày?' },
    ],
  },
  {
    page: 'Demo Fashion Outlet',
    platformPageId: '100000000000002',
    customers: [{ psid: '200000000000003', name: 'Lê Hoàng Anh', text: 'Váy hoa còn màu xanh không shop?' }],
  },
];

export async function seedDemoChat(sql: Sql, options: { shopId: string; platformUrl: string; secretsKey: KeyObject }): Promise<void> {
  const { shopId, platformUrl, secretsKey } = options;
  // The seed speaks only to the local simulator, as development allows.
  const ownerOf = pageTokenOwner(
    createChatPlatformAdapter({ baseUrl: platformUrl, dispatcher: createOutboundAgent({ allowLoopback: true }) }),
  );
  const control = async <T>(path: string, body: object): Promise<T> => {
    const response = await fetch(`${platformUrl}/_control${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`chat simulator ${path}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  for (const demo of DEMO_CHAT) {
    const known = await withShop(sql, shopId, async (tx) => {
      const [page] = await tx<{ id: string }[]>`select id from pages where name = ${demo.page}`;
      const customers = await tx<{ platformCustomerId: string }[]>`
        select k.platform_customer_id from chat_customers k join chat_conversations c on c.chat_customer_id = k.id
        where k.page_id = ${page?.id ?? null}`;
      return { pageId: page?.id, psids: new Set(customers.map((customer) => customer.platformCustomerId)) };
    });
    if (!known.pageId) continue;
    const { accessTokens } = await control<{ accessTokens: string[] }>('/pages', { name: demo.page, id: demo.platformPageId });
    await withShop(sql, shopId, (tx) =>
      linkPage(
        tx,
        shopId,
        { pageId: known.pageId!, platformPageId: demo.platformPageId, accessToken: accessTokens[0]! },
        secretsKey,
        ownerOf,
      ),
    );
    for (const { text, ...customer } of demo.customers) {
      await control(`/pages/${demo.platformPageId}/customers`, customer);
      await control(`/customers/${customer.psid}/messages`, { text, webhook: !known.psids.has(customer.psid) });
    }
  }
}
