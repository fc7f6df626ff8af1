import { createServer } from 'node:http';
import { createChatPlatformAdapter } from '../adapters/chat-platform/platform-adapter.js';
import { createOutboundAgent } from '../adapters/outbound/outbound-http.js';

/**
 * The least any server between the bench and the Send API costs: node:http in, the same platform
 * adapter out, and nothing between: no key, database, lock, record or event. The page's token and
 * each conversation's recipient come in its environment (PAGE_ACCESS_TOKEN, RELAY_RECIPIENTS, a JSON
 * object of conversation id to recipient). A send through Shopflow does all of this and more on the
 * same cores as the bench and the simulator, so it cannot outpace this relay.
 */
const pageToken = process.env.PAGE_ACCESS_TOKEN!;
const recipients = new Map(Object.entries(JSON.parse(process.env.RELAY_RECIPIENTS!) as Record<string, string>));
const platform = createChatPlatformAdapter({
  baseUrl: process.env.CHAT_PLATFORM_URL!,
  dispatcher: createOutboundAgent({ allowLoopback: true }),
});
const CONVERSATION_MESSAGES = /^\/conversations\/([^/]+)\/messages$/;

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', async () => {
    const recipient = recipients.get(CONVERSATION_MESSAGES.exec(request.url ?? '')?.[1] ?? '');
    if (!recipient) {
      response.writeHead(404).end();
      return;
    }
    const { text } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string };
    const sent = await platform.sendMessage(pageToken, recipient, { text });
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify(sent));
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
