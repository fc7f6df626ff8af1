import type { Sql } from '../../db/client.js';
import { withShop } from '../kernel/index.js';
import { recordCommentChange } from './comments.js';
import type { InboundItem } from './inbound-webhook.js';
import { recordInboundMessage } from './messages.js';
import { linkedPageOf } from './page-links.js';

/**
 * Records the items of one verified webhook, each in its page's shop and its own transaction. Items
 * of a platform page no shop has linked are ignored (the platform would retry them for nothing);
 * echoes of the page's own sends are left for the send step. A failure throws: the webhook is then
 * answered 5xx and the platform delivers it again, which recording once per platform id makes safe.
 */
export async function recordInboundWebhook(sql: Sql, items: readonly InboundItem[]): Promise<{ recorded: number; ignored: number }> {
  let recorded = 0;
  for (const item of items) {
    const link = item.kind === 'echo' ? undefined : await linkedPageOf(sql, item.platformPageId);
    if (!link) continue;
    await withShop(sql, link.shopId, async (tx) => {
      if (item.kind === 'comment') await recordCommentChange(tx, link.shopId, link.pageId, item.change);
      else await recordInboundMessage(tx, link.shopId, { ...item, pageId: link.pageId });
    });
    recorded += 1;
  }
  return { recorded, ignored: items.length - recorded };
}
