import { randomBytes } from 'node:crypto';
import type { Sql } from '../../db/client.js';
import { linkPage } from '../../domain/chat/index.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { testSecretsKey } from '../support/fixtures.js';

/** A page of the shop (access's table, written as a fixture) linked to a platform page with a token. */
export async function linkedPage(sql: Sql, shopId: string, options: { name?: string; platformPageId?: string; accessToken?: string } = {}) {
  const platformPageId = options.platformPageId ?? `${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
  const accessToken = options.accessToken ?? `EAA${randomBytes(24).toString('hex')}`;
  const pageId = await withShop(sql, shopId, async (tx) => {
    const [page] = await tx<
      { id: string }[]
    >`insert into pages (shop_id, name) values (${shopId}, ${options.name ?? 'Fanpage'}) returning id`;
    await linkPage(tx, shopId, { pageId: page!.id, platformPageId, accessToken }, testSecretsKey);
    return page!.id;
  });
  return { pageId, platformPageId, accessToken };
}

export const cursorBinding = (shopId: string, list: string) => ({ secret: 'chat-test-cursor-secret', scope: { shopId, list } });
