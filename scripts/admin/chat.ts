import { pageTokenOwner } from '../../adapters/chat-platform/page-ownership.js';
import { createChatPlatformAdapter, REAL_CHAT_PLATFORM_URL } from '../../adapters/chat-platform/platform-adapter.js';
import { loadSettings } from '../../config/settings.js';
import { createOutboundAgent, outboundPolicyFrom } from '../../adapters/outbound/outbound-http.js';
import { linkPage, PageLinkInputSchema, unlinkPage } from '../../domain/chat/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { fail, required, shopFlag, uuidFlag, type Command } from './flags.js';

const FLAG_OF: Record<string, string> = { platformPageId: 'platform-page', accessToken: 'token' };

/**
 * Chat (the chat module): a shop's page linked to its platform page with the page's access token,
 * once the platform (`CHAT_PLATFORM_URL`, else the real Graph API) confirms the token is that page's;
 * and unlinked.
 */
export const chatCommands: Record<string, Command> = {
  'chat:link-page': {
    usage: '--shop S --page ID --platform-page P --token T',
    run: async (sql, f, env) => {
      const shop = await shopFlag(sql, f);
      const pageId = uuidFlag(f, 'page');
      const parsed = PageLinkInputSchema.safeParse({ platformPageId: required(f, 'platform-page'), accessToken: required(f, 'token') });
      if (!parsed.success) fail(parsed.error.issues.map((issue) => `--${FLAG_OF[String(issue.path[0])]}: ${issue.message}`).join('; '));
      const settings = loadSettings(env);
      const ownerOf = pageTokenOwner(
        createChatPlatformAdapter({
          baseUrl: settings.CHAT_PLATFORM_URL ?? REAL_CHAT_PLATFORM_URL,
          dispatcher: createOutboundAgent(outboundPolicyFrom(settings)),
        }),
      );
      await withShop(sql, shop.id, (tx) => linkPage(tx, shop.id, { ...parsed.data, pageId }, settings.secretsKey, ownerOf));
      return { pageId, platformPageId: parsed.data.platformPageId, connected: true };
    },
  },
  'chat:unlink-page': {
    usage: '--shop S --page ID',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const pageId = uuidFlag(f, 'page');
      await withShop(sql, shop.id, (tx) => unlinkPage(tx, pageId));
      return { pageId, connected: false };
    },
  },
};
