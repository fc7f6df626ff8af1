import type { Sql } from '../../db/client.js';
import { markPageDisconnected, type ChatChannel, type PlatformPage } from '../../domain/chat/index.js';
import { withShop } from '../../domain/kernel/index.js';
import type { ChatPlatformAdapter } from './platform-adapter.js';
import { ChatPlatformError, problemForPlatformError } from './platform-errors.js';

/**
 * The chat module's channel over the platform adapter: a platform failure becomes the Open API's
 * problem (platform-errors.ts), and a refused page token also marks the page's link disconnected, in
 * its own transaction (the caller's rolls back with the refusal), so `GET /pages` and `canReply` say
 * so and the next send is refused without asking the platform.
 */
export function chatChannel(sql: Sql, adapter: ChatPlatformAdapter): ChatChannel {
  async function call<T>(page: PlatformPage, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ChatPlatformError)) throw error;
      if (error.kind === 'page-not-connected') await withShop(sql, page.shopId, (tx) => markPageDisconnected(tx, page.pageId));
      throw problemForPlatformError(error);
    }
  }
  return {
    sendMessage: (page, recipientId, content) => call(page, () => adapter.sendMessage(page.accessToken, recipientId, content)),
    replyPrivately: (page, commentId, text) => call(page, () => adapter.replyPrivately(page.accessToken, commentId, text)),
    setCommentHidden: (page, commentId, hidden) => call(page, () => adapter.setCommentHidden(page.accessToken, commentId, hidden)),
  };
}
