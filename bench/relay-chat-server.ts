import { createChatPlatformAdapter } from '../adapters/chat-platform/platform-adapter.js';
import { createOutboundAgent } from '../adapters/outbound/outbound-http.js';
import { serveConversationSends } from './conversation-sends-server.js';

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

serveConversationSends(async ({ conversationId, text }) => {
  const recipient = recipients.get(conversationId);
  return recipient ? platform.sendMessage(pageToken, recipient, { text }) : 404;
});
