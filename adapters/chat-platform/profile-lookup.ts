import type { KeyObject } from 'node:crypto';
import type { Sql } from '../../db/client.js';
import { pageLink, type ProfileLookup } from '../../domain/chat/index.js';
import { withShop } from '../../domain/kernel/index.js';
import type { ChatPlatformAdapter } from './platform-adapter.js';

/** The inbound webhook's profile lookup: the page's token opened in its shop, then the platform asked. */
export function chatProfileLookup(sql: Sql, adapter: ChatPlatformAdapter, secretsKey: KeyObject): ProfileLookup {
  return async (page, platformCustomerId) => {
    const link = await withShop(sql, page.shopId, (tx) => pageLink(tx, page.pageId, secretsKey));
    if (!link?.connected) throw new Error(`page ${page.pageId} has no connected platform link`);
    return adapter.customerProfile(link.accessToken, platformCustomerId);
  };
}
