import { chatChannel } from '../adapters/chat-platform/chat-channel.js';
import { createChatPlatformAdapter } from '../adapters/chat-platform/platform-adapter.js';
import { createOutboundAgent } from '../adapters/outbound/outbound-http.js';
import { loadSettings } from '../config/settings.js';
import { createSql } from '../db/client.js';
import { hashApiKey } from '../domain/access/index.js';
import { sendChatMessage } from '../domain/chat/index.js';
import { withShop } from '../domain/kernel/index.js';
import { serveConversationSends } from './conversation-sends-server.js';

/**
 * The floor of the chat scenario: node:http calling the same work a send needs, with nothing else:
 * the key's lookup and count (authenticate_request, on a counter of its own, `bare`), then the
 * domain's send in the shop's transaction through the same platform adapter. No framework, schema
 * validation, permission or rate-limit answer, idempotency, metrics or logs.
 */
const settings = loadSettings();
const sql = createSql(process.env.APP_DATABASE_URL!, { max: 10, applicationName: 'bench-bare-chat' });
const channel = chatChannel(
  sql,
  createChatPlatformAdapter({ baseUrl: process.env.CHAT_PLATFORM_URL!, dispatcher: createOutboundAgent({ allowLoopback: true }) }),
);
serveConversationSends(
  async ({ conversationId, text, authorization }) => {
    const key = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    const [auth] = key
      ? await sql<{ shopId: string; pageIds: string[]; applicationName: string }[]>`
          select * from authenticate_request(${hashApiKey(key)}, 'bare')`
      : [];
    if (!auth) return 401;
    const actor = {
      shopId: auth.shopId,
      pageIds: auth.pageIds,
      applicationName: auth.applicationName,
      channel,
      secretsKey: settings.secretsKey,
    };
    return withShop(sql, auth.shopId, (tx) => sendChatMessage(tx, actor, conversationId, { text }));
  },
  () => sql.end(),
);
