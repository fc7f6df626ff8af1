import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { existingPageIds } from '../access/index.js';
import { isUuid, decryptSecret, pipelined, Problem, encryptSecret, type Tx } from '../kernel/index.js';

/** A page's platform side, its token opened: what the platform adapter needs to speak for the page. */
export interface PageLink {
  pageId: string;
  platformPageId: string;
  accessToken: string;
  connected: boolean;
}

/** The shop and page a platform page is linked to. */
export interface LinkedPage {
  shopId: string;
  pageId: string;
}

/** What linking takes: the platform page and its page access token (sent as a header: printable, no spaces). */
export const PageLinkInputSchema = z.strictObject({
  platformPageId: z.string().regex(/^\d{1,30}$/, 'digits, as platform page ids are'),
  accessToken: z
    .string()
    .min(1)
    .max(2000)
    .regex(/^[\x21-\x7e]+$/, 'printable characters without spaces'),
});
export type PageLinkInput = z.infer<typeof PageLinkInputSchema>;

/**
 * Whose page a page access token speaks for, as the platform answers it (`GET /me`): the platform
 * page id, or null when the platform refuses the token (unknown, expired, revoked, not a page's).
 * The caller asks the platform; it throws when the platform cannot say.
 */
export type PageTokenOwner = (accessToken: string) => Promise<string | null>;

/**
 * Links a page of the shop to its platform page once the platform confirms the token is that page's
 * (a page id is public; only its token proves the page is the shop's). The token is encrypted at rest
 * (the page id as associated data); a new token means the page is connected again. 404 for another
 * shop's page; 422 `page-not-connected` for a token that is not the platform page's, whatever any
 * shop holds. The latest proven link wins: a link another page (of this shop or another) holds for
 * the platform page is a stale claim, and is removed.
 */
export async function linkPage(
  tx: Tx,
  shopId: string,
  input: PageLinkInput & { pageId: string },
  key: KeyObject,
  ownerOf: PageTokenOwner,
): Promise<void> {
  const known = await knownPage(tx, input.pageId);
  const owner = await ownerOf(input.accessToken);
  if (owner !== input.platformPageId) {
    // Decided by the platform's answer alone, before any link is read: it says nothing of who holds the page.
    throw new Problem(
      'page-not-connected',
      owner === null
        ? 'the chat platform refuses this access token (unknown, expired or revoked)'
        : `this access token is not platform page ${input.platformPageId}'s`,
    );
  }
  // The policy shows a link to whoever names its platform page id, named here only after the proof.
  await tx`select set_config('app.platform_page_id', ${input.platformPageId}, true)`;
  await tx`delete from chat_page_links where platform_page_id = ${input.platformPageId} and page_id <> ${known}`;
  await tx`select set_config('app.platform_page_id', '', true)`;
  const encrypted = encryptSecret(key, input.accessToken, known);
  await tx`
    insert into chat_page_links (page_id, shop_id, platform_page_id, encrypted_access_token, connected)
    values (${known}, ${shopId}, ${input.platformPageId}, ${encrypted}, true)
    on conflict (page_id) do update set platform_page_id = excluded.platform_page_id,
      encrypted_access_token = excluded.encrypted_access_token, connected = true, updated_at = clock_timestamp()`.catch(
    (error: unknown) => {
      // The platform page's unique index: another proven link of the same page committed meanwhile.
      if ((error as { code?: string }).code === '23505')
        throw new Problem('conflict', `platform page ${input.platformPageId} was linked at the same time; try again`);
      throw error;
    },
  );
}

/**
 * Removes the page's platform link: its token is forgotten, its webhooks are no longer recorded and
 * sends answer `page-not-connected` until it is linked again; its conversations stay. A page without
 * a link is left as it is; 404 for another shop's page.
 */
export async function unlinkPage(tx: Tx, pageId: string): Promise<void> {
  await tx`delete from chat_page_links where page_id = ${await knownPage(tx, pageId)}`;
}

/** The id of a page of the shop; 404 for any other (another shop's page is not visible). */
async function knownPage(tx: Tx, pageId: string): Promise<string> {
  const [known] = isUuid(pageId) ? await existingPageIds(tx, [pageId]) : [];
  if (!known) throw new Problem('not-found', `no page ${pageId}`);
  return known;
}

/** A link's row as `ENCRYPTED_LINK_COLUMNS` reads it: every column null where a left join found no link. */
export interface EncryptedPageLinkRow {
  pageId: string | null;
  platformPageId: string | null;
  encryptedAccessToken: Buffer | null;
  connected: boolean | null;
}

/** The columns of `chat_page_links l` that `openedPageLink` reads. */
export const ENCRYPTED_LINK_COLUMNS = (tx: Tx) => tx`l.page_id, l.platform_page_id, l.encrypted_access_token, l.connected`;

/** The link of a row, its token opened; undefined when the row holds no link. */
export function openedPageLink(row: EncryptedPageLinkRow, key: KeyObject): PageLink | undefined {
  const { pageId, platformPageId, encryptedAccessToken, connected } = row;
  if (pageId === null || platformPageId === null || encryptedAccessToken === null || connected === null) return undefined;
  return { pageId, platformPageId, connected, accessToken: decryptSecret(key, encryptedAccessToken, pageId) };
}

/** The page's link with its token opened; undefined when the page has none. */
export async function pageLink(tx: Tx, pageId: string, key: KeyObject): Promise<PageLink | undefined> {
  const [row] = await tx<EncryptedPageLinkRow[]>`select ${ENCRYPTED_LINK_COLUMNS(tx)} from chat_page_links l where l.page_id = ${pageId}`;
  return row && openedPageLink(row, key);
}

/** The platform refused the page's token (code 190): the page stays disconnected until a new token is linked. */
export async function markPageDisconnected(tx: Tx, pageId: string): Promise<void> {
  await tx`update chat_page_links set connected = false, updated_at = clock_timestamp() where page_id = ${pageId} and connected`;
}

/**
 * The shop and page an inbound webhook's platform page belongs to; undefined when no shop linked it.
 * The webhook knows no shop yet: row-level security shows the link to whoever names its platform id,
 * which this names for the rest of the open transaction. One round trip.
 */
export function linkedPageOf(tx: Tx, platformPageId: string): Promise<LinkedPage | undefined> {
  return pipelined(
    tx`select set_config('app.platform_page_id', ${platformPageId}, true)`,
    async () => (await tx<LinkedPage[]>`select shop_id, page_id from chat_page_links where platform_page_id = ${platformPageId}`)[0],
  );
}
