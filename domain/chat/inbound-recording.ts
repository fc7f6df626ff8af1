import type { Sql } from '../../db/client.js';
import { allAnswered, enterShop, withShop } from '../kernel/index.js';
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
    const target = await inboundTarget(sql, item, options.profileOf !== undefined);
    if (!target) continue;
    // Held: the echo of a send through the API, committed before its echo came.
    if (!target.held) await recordItem(sql, target, item, options.profileOf);
    recorded += 1;
  }
  return { recorded, ignored: items.length - recorded };
}

/** Where an item goes, and what the page already knows of it. */
interface InboundTarget {
  link: LinkedPage;
  /** An echo whose message the page holds. */
  held: boolean;
  /** Whether the page knows the customer's name (the profile is asked for only when it does not). */
  knowsProfile: boolean;
}

async function recordItem(sql: Sql, target: InboundTarget, item: InboundItem, profileOf: ProfileLookup | undefined): Promise<void> {
  const { link } = target;
  if (item.kind === 'comment') {
    await withShop(sql, link.shopId, (tx) => recordCommentChange(tx, link.shopId, link.pageId, item.change));
    return;
  }
  const customer = target.knowsProfile || !profileOf ? item.customer : await withProfile(link, item, profileOf);
  const direction = item.kind === 'echo' ? 'out' : 'in';
  await withShop(sql, link.shopId, (tx) => recordWebhookMessage(tx, link.shopId, { ...item, customer, direction, pageId: link.pageId }));
}

/**
 * The linked page an item belongs to (undefined when no shop linked it), whether the page already
 * holds an echo's message, and (`asksProfiles`) whether it knows a message's customer by name: one
 * transaction, the page's questions in one round trip after the link's. An echo whose send is still
 * being recorded is not held yet; it is then recorded as any message, and waits for the send's lock
 * on the conversation to find it there.
 */
async function inboundTarget(sql: Sql, item: InboundItem, asksProfiles: boolean): Promise<InboundTarget | undefined> {
  return sql.begin(async (tx) => {
    const link = await linkedPageOf(tx, item.platformPageId);
    if (!link) return undefined;
    if (item.kind === 'comment' || (item.kind === 'message' && !asksProfiles)) return { link, held: false, knowsProfile: true };
    const [held, knowsProfile] = await enterShop(tx, link.shopId, () =>
      allAnswered([
        item.kind === 'echo' && holdsPlatformMessage(tx, link.pageId, item.platformMessageId),
        !asksProfiles || hasChatCustomerProfile(tx, link.pageId, item.customer.platformCustomerId),
      ]),
    );
    return { link, held, knowsProfile };
  }) as Promise<InboundTarget | undefined>;
}

/** The item's customer with the platform's profile; without it when the platform cannot say. */
async function withProfile(link: LinkedPage, item: InboundMessage, profileOf: ProfileLookup): Promise<PlatformCustomer> {
  const { platformCustomerId } = item.customer;
  try {
    return { platformCustomerId, ...(await profileOf(link, platformCustomerId)) };
  } catch {
    // The profile is asked for again with the customer's next message.
    return item.customer;
  }
}
