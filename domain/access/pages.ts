import { refuseAtCap, type Named, type Tx } from '../kernel/index.js';

/** A chat page of the shop (the chat module links it to its platform page and keeps its conversations). */
export interface ChatPage extends Named {
  platform: string;
  connected: boolean;
}

/**
 * Only the chat pages of the key's list: the others do not exist for it (spec, Permissions).
 * `connected`: the page is the shop's and the chat module has it linked to a platform that still
 * accepts its token (`chat_page_connected`, which chat publishes).
 */
export async function listPages(tx: Tx, pageIds: readonly string[]): Promise<ChatPage[]> {
  if (pageIds.length === 0) return [];
  return [
    ...(await tx<ChatPage[]>`
    select id, name, platform, connected and chat_page_connected(id) as connected from pages
    where id = any(${pageIds as string[]}::uuid[])
    order by lower(unaccent(name)), name, id`),
  ];
}

/** The ids (as stored) of those of `ids` that name a page of the shop. */
export async function existingPageIds(tx: Tx, ids: readonly string[]): Promise<string[]> {
  const known = await tx<{ id: string }[]>`select id from pages where id = any(${ids as string[]}::uuid[])`;
  return known.map((row) => row.id);
}

/** A new chat page of the shop (admin web app, operators' CLI); 409 `limit-reached` past the shop's cap. */
export async function createPage(tx: Tx, shopId: string, name: string): Promise<Named> {
  await refuseAtCap(tx, shopId, 'chatPages', tx`select from pages`);
  const [page] = await tx<Named[]>`insert into pages (shop_id, name) values (${shopId}, ${name}) returning id, name`;
  return page!;
}

/** Every chat page of the shop (the admin web app's set-up and pickers). */
export async function listShopPages(tx: Tx): Promise<ChatPage[]> {
  const all = await tx<{ id: string }[]>`select id from pages`;
  return listPages(
    tx,
    all.map((page) => page.id),
  );
}
