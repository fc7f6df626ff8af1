import { loadSettings } from '../../config/settings.js';
import { linkPage } from '../../domain/chat/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { required, shopFlag, uuidFlag, type Command } from './flags.js';

/** Chat (the chat module): a shop's page linked to its platform page with the page's access token. */
export const chatCommands: Record<string, Command> = {
  'chat:link-page': {
    usage: '--shop S --page ID --platform-page P --token T',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const pageId = uuidFlag(f, 'page');
      const platformPageId = required(f, 'platform-page');
      await withShop(sql, shop.id, (tx) =>
        linkPage(tx, shop.id, { pageId, platformPageId, accessToken: required(f, 'token') }, loadSettings().secretsKey),
      );
      return { pageId, platformPageId, connected: true };
    },
  },
};
