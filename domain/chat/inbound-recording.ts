import type { Sql } from '../../db/client.js';
import { withShop } from '../kernel/index.js';
import { hasChatCustomerProfile, type PlatformCustomer } from './chat-customers.js';
import { recordCommentChange } from './comments.js';
import type { InboundItem, InboundMessage } from './inbound-webhook.js';
import { recordWebhookMessage } from './messages.js';
import { linkedPageOf } from './page-links.js';

interface LinkedPage {
  shopId: string;
  pageId: string;
}

/** The platform's profile of a customer of a page (the adapter's `customerProfile`, with the page's token). */
export type ProfileLookup = (page: LinkedPage, platformCustomerId: string) => Promise<{ name: string | null; phone: string | null }>;

/**
 * Records the items of one verified webhook, each in its page's shop and its own transaction. Items
 * of a platform page no shop has linked are ignored (the platform would retry them for nothing);
 * an echo of the page's own send is recorded once: a send through the API already holds its platform id. A failure throws: the webhook is then
 * answered 5xx and the platform delivers it again, which recording once per platform id makes safe.
 * With `profileOf`, a customer whose name the page does not know yet is looked up first (name, and
 * the phone that links the shop's customer); a failed lookup records the message without it.
 */
export async function recordInboundWebhook(
  sql: Sql,
  items: readonly InboundItem[],
  options: { profileOf?: ProfileLookup } = {},
): Promise<{ recorded: number; ignored: number }> {
  let recorded = 0;
  for (const item of items) {
    const link = await linkedPageOf(sql, item.platformPageId);
    if (!link) continue;
    if (item.kind === 'comment') {
      await withShop(sql, link.shopId, (tx) => recordCommentChange(tx, link.shopId, link.pageId, item.change));
    } else {
      const customer = await withProfile(sql, link, item, options.profileOf);
      const direction = item.kind === 'echo' ? 'out' : 'in';
      await withShop(sql, link.shopId, (tx) =>
        recordWebhookMessage(tx, link.shopId, { ...item, customer, direction, pageId: link.pageId }),
      );
    }
    recorded += 1;
  }
  return { recorded, ignored: items.length - recorded };
}

async function withProfile(
  sql: Sql,
  link: LinkedPage,
  item: InboundMessage,
  profileOf: ProfileLookup | undefined,
): Promise<PlatformCustomer> {
  const { platformCustomerId } = item.customer;
  if (!profileOf || (await withShop(sql, link.shopId, (tx) => hasChatCustomerProfile(tx, link.pageId, platformCustomerId))))
    return item.customer;
  try {
    return { platformCustomerId, ...(await profileOf(link, platformCustomerId)) };
  } catch {
    // The profile is asked for again with the customer's next message.
    return item.customer;
  }
}
