import { customerIdByPhone } from '../customers/index.js';
import { normalizePhone, type Tx } from '../kernel/index.js';

/** A customer as the platform presents them to one page: the page-scoped id, and a profile when known. */
export interface PlatformCustomer {
  platformCustomerId: string;
  name?: string | null;
  phone?: string | null;
}

/**
 * The chat customer of `pageId` with this page-scoped id, created on first sight. A name or phone the
 * platform gives replaces the stored one; a phone links the shop's customer holding it (a customer
 * linked earlier stays linked while no phone is given). Returns the chat customer's id and the name
 * it now has.
 */
export async function rememberChatCustomer(
  tx: Tx,
  shopId: string,
  pageId: string,
  customer: PlatformCustomer,
): Promise<{ id: string; name: string | null }> {
  const phone = vietnamesePhoneOrNull(customer.phone);
  const linkedCustomerId = phone ? ((await customerIdByPhone(tx, phone)) ?? null) : null;
  const [row] = await tx<{ id: string; name: string | null }[]>`
    insert into chat_customers (shop_id, page_id, platform_customer_id, name, phone, customer_id)
    values (${shopId}, ${pageId}, ${customer.platformCustomerId}, ${customer.name ?? null}, ${phone}, ${linkedCustomerId})
    on conflict (page_id, platform_customer_id) do update set
      name = coalesce(excluded.name, chat_customers.name),
      phone = coalesce(excluded.phone, chat_customers.phone),
      customer_id = case when excluded.phone is null then chat_customers.customer_id else excluded.customer_id end,
      updated_at = clock_timestamp()
    returning id, name`;
  return row!;
}

/** A phone the platform gave, as customers store it; null when it is not a Vietnamese number (no link then). */
function vietnamesePhoneOrNull(phone: string | null | undefined): string | null {
  if (!phone) return null;
  try {
    return normalizePhone(phone);
  } catch {
    return null;
  }
}

/** Whether the page already knows this customer's name (a profile is then not asked for again). */
export async function hasChatCustomerProfile(tx: Tx, pageId: string, platformCustomerId: string): Promise<boolean> {
  const [known] =
    await tx`select 1 from chat_customers where page_id = ${pageId} and platform_customer_id = ${platformCustomerId} and name is not null`;
  return known !== undefined;
}
