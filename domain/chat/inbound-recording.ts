import type { Sql } from '../../db/client.js';
import { inShop, withShop } from '../kernel/index.js';
import { hasChatCustomerProfile, type PlatformCustomer } from './chat-customers.js';
import { recordCommentChange } from './comments.js';
import type { InboundItem, InboundMessage } from './inbound-webhook.js';
import { holdsPlatformMessage, recordWebhookMessage } from './messages.js';
import { linkedPageOf, type LinkedPage } from './page-links.js';

/** The platform's profile of a customer of a page (the adapter's `customerProfile`, with the page's token). */
export type ProfileLookup = (page: LinkedPage, platformCustomerId: string) => Promise<{ name: string | null; phone: string | null }>;

/**
 * Records the items of one verified webhook, each in its page's shop and its own transaction. Items
 * of a platform page no shop has linked are ignored (the platform would retry them for nothing);
 * an echo of the page's own send is recorded once: a send through the API already holds its platform
 * id, and its echo is then answered after one read. A failure throws: the webhook is then answered
 * 5xx and the platform delivers it again, which recording once per platform id makes safe.
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
    const target = await inboundTarget(sql, item);
    if (!target) continue;
    // Held: the echo of a send through the API, committed before its echo came.
    if (!target.held) await recordItem(sql, target.link, item, options.profileOf);
    recorded += 1;
  }
  return { recorded, ignored: items.length - recorded };
}

async function recordItem(sql: Sql, link: LinkedPage, item: InboundItem, profileOf: ProfileLookup | undefined): Promise<void> {
  if (item.kind === 'comment') {
    await withShop(sql, link.shopId, (tx) => recordCommentChange(tx, link.shopId, link.pageId, item.change));
    return;
  }
  const customer = await withProfile(sql, link, item, profileOf);
  const direction = item.kind === 'echo' ? 'out' : 'in';
  await withShop(sql, link.shopId, (tx) => recordWebhookMessage(tx, link.shopId, { ...item, customer, direction, pageId: link.pageId }));
}

/**
 * The linked page an item belongs to (undefined when no shop linked it), and for an echo whether the
 * page already holds its message: one transaction, in as many round trips as it has questions. An echo
 * whose send is still being recorded is not held yet; it is then recorded as any message, and waits
 * for the send's lock on the conversation to find it there.
 */
async function inboundTarget(sql: Sql, item: InboundItem): Promise<{ link: LinkedPage; held: boolean } | undefined> {
  return sql.begin(async (tx) => {
    const link = await linkedPageOf(tx, item.platformPageId);
    if (!link) return undefined;
    const held =
      item.kind === 'echo' && (await inShop(tx, link.shopId, () => holdsPlatformMessage(tx, link.pageId, item.platformMessageId)));
    return { link, held };
  }) as Promise<{ link: LinkedPage; held: boolean } | undefined>;
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
