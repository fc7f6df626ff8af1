import type { KeyObject } from 'node:crypto';
import type { Sql } from '../../db/client.js';
import { existingPageIds } from '../access/index.js';
import { isUuid, openSecret, Problem, sealSecret, type Tx } from '../kernel/index.js';

/** A page's platform side, its token opened: what the platform adapter needs to speak for the page. */
export interface PageLink {
  pageId: string;
  platformPageId: string;
  accessToken: string;
  connected: boolean;
}

/**
 * Links a page of the shop to its platform page with a new page access token, sealed at rest (the
 * page id as associated data). A new token means the page is connected again. 404 for another shop's page.
 */
export async function linkPage(
  tx: Tx,
  shopId: string,
  input: { pageId: string; platformPageId: string; accessToken: string },
  key: KeyObject,
): Promise<void> {
  const [known] = isUuid(input.pageId) ? await existingPageIds(tx, [input.pageId]) : [];
  if (!known) throw new Problem('not-found', `no page ${input.pageId}`);
  const sealed = sealSecret(key, input.accessToken, known);
  await tx`
    insert into chat_page_links (page_id, shop_id, platform_page_id, sealed_access_token, connected)
    values (${known}, ${shopId}, ${input.platformPageId}, ${sealed}, true)
    on conflict (page_id) do update set platform_page_id = excluded.platform_page_id,
      sealed_access_token = excluded.sealed_access_token, connected = true, updated_at = clock_timestamp()`.catch((error: unknown) => {
    // The platform page's unique index: a platform page speaks for one page of one shop at a time.
    if ((error as { code?: string }).code === '23505')
      throw new Problem('conflict', `platform page ${input.platformPageId} is linked to another page`);
    throw error;
  });
}

/** The page's link with its token opened; undefined when the page has none. */
export async function pageLink(tx: Tx, pageId: string, key: KeyObject): Promise<PageLink | undefined> {
  const [link] = await tx<{ pageId: string; platformPageId: string; sealedAccessToken: Buffer; connected: boolean }[]>`
    select page_id, platform_page_id, sealed_access_token, connected from chat_page_links where page_id = ${pageId}`;
  if (!link) return undefined;
  const { sealedAccessToken, ...rest } = link;
  return { ...rest, accessToken: openSecret(key, sealedAccessToken, link.pageId) };
}

/** The platform refused the page's token (code 190): the page stays disconnected until a new token is linked. */
export async function markPageDisconnected(tx: Tx, pageId: string): Promise<void> {
  await tx`update chat_page_links set connected = false, updated_at = clock_timestamp() where page_id = ${pageId} and connected`;
}

/**
 * The shop and page an inbound webhook's platform page belongs to; undefined when no shop linked it.
 * The webhook knows no shop yet: row-level security shows the link to whoever names its platform id.
 */
export async function linkedPageOf(sql: Sql, platformPageId: string): Promise<{ shopId: string; pageId: string } | undefined> {
  return sql.begin(async (tx) => {
    await tx`select set_config('app.platform_page_id', ${platformPageId}, true)`;
    const [link] = await tx<{ shopId: string; pageId: string }[]>`
      select shop_id, page_id from chat_page_links where platform_page_id = ${platformPageId}`;
    return link;
  }) as Promise<{ shopId: string; pageId: string } | undefined>;
}
