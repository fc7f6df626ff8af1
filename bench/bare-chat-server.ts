import { createServer } from 'node:http';
import { chatChannel } from '../adapters/chat-platform/chat-channel.js';
import { createChatPlatformAdapter } from '../adapters/chat-platform/platform-adapter.js';
import { createOutboundAgent } from '../adapters/outbound/outbound-http.js';
import { loadSettings } from '../config/settings.js';
import { createSql } from '../db/client.js';
import { hashApiKey } from '../domain/access/index.js';
import { sendChatMessage } from '../domain/chat/index.js';
import { withShop } from '../domain/kernel/index.js';

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
const CONVERSATION_MESSAGES = /^\/conversations\/([^/]+)\/messages$/;

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', async () => {
    const conversationId = CONVERSATION_MESSAGES.exec(request.url ?? '')?.[1];
    const key = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const [auth] =
      conversationId && key
        ? await sql<{ shopId: string; pageIds: string[]; applicationName: string }[]>`
            select * from authenticate_request(${hashApiKey(key)}, 'bare')`
        : [];
    if (!auth || !conversationId) {
      response.writeHead(auth ? 404 : 401).end();
      return;
    }
    const { text } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string };
    const actor = {
      shopId: auth.shopId,
      pageIds: auth.pageIds,
      applicationName: auth.applicationName,
      channel,
      secretsKey: settings.secretsKey,
    };
    const message = await withShop(sql, auth.shopId, (tx) => sendChatMessage(tx, actor, conversationId, { text }));
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify(message));
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => void sql.end().then(() => process.exit(0))));
