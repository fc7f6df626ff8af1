import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHAT_WEBHOOK_PATH } from '../../api/routes/chat/chat-webhook.js';
import { seedDemoChat } from '../../scripts/seed/demo-chat.js';
import { seedDemoShop } from '../../scripts/seed/demo-shop.js';
import { startChatPlatform } from '../../simulators/chat/index.js';
import { testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { temporaryDir } from '../support/temporary-dirs.js';

const { db, api, chat, request } = useSuite({ api: true, chat: true });

describe('the demo chat of npm run dev', () => {
  it('links both demo pages with a few conversations, and a second run on a fresh simulator records nothing twice', async () => {
    const demo = await seedDemoShop(db.app, join(temporaryDir('shopflow-chat-seed'), 'demo-api-key'));
    // The first run's simulator; then the API's own, as a restarted `npm run dev` would have.
    const earlier = await startChatPlatform({ callbackUrl: `${api.baseUrl}${CHAT_WEBHOOK_PATH}` });
    try {
      await seedDemoChat(db.app, { shopId: demo.shopId, platformUrl: earlier.url, secretsKey: testSecretsKey });
      await earlier.platform.webhooks.settled();
    } finally {
      await earlier.close();
    }
    await seedDemoChat(db.app, { shopId: demo.shopId, platformUrl: chat.url, secretsKey: testSecretsKey });
    await chat.platform.webhooks.settled();

    const pages = (await (await request('GET', '/pages', { key: demo.key })).json()) as { data: { connected: boolean }[] };
    expect(pages.data.map((page) => page.connected)).toEqual([true, true]);
    const conversations = (await (await request('GET', '/conversations', { key: demo.key })).json()) as {
      data: { id: string; canReply: boolean }[];
    };
    expect(conversations.data).toHaveLength(3);
    const [{ messages } = { messages: 0 }] = await db.admin<{ messages: number }[]>`select count(*)::int as messages from chat_messages`;
    expect(messages).toBe(3);
    // The platform remembers the customers' messages: the window is open for an answer.
    const answer = await request('POST', `/conversations/${conversations.data[0]!.id}/messages`, {
      key: demo.key,
      body: { text: 'Dạ có ạ' },
    });
    expect(answer.status, await answer.clone().text()).toBe(201);
  });
});
