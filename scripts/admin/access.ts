import type { Sql } from '../../db/client.js';
import {
  addMember,
  createApplication,
  createKey,
  createPage,
  revokeKey,
  rotateKey,
  shopOwning,
  updateApplication,
  updateMember,
  type Actor,
  type MemberStatus,
} from '../../domain/access/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { booleanFlag, integerFlag, list, memberFlag, oneOf, required, shopFlag, type Command, type Flags } from './flags.js';

/** People, connection applications with their keys, and chat pages (access). */
export const accessCommands: Record<string, Command> = {
  'user:create': {
    usage: '--shop S --email E --name N [--role R] [--password P]',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      return addMember(sql, shop.id, { email: required(f, 'email'), name: required(f, 'name'), role: f.role, password: f.password });
    },
  },
  'user:set': {
    usage: '--shop S --email E [--status working|disabled|left] [--locked true|false] [--password P]',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const userId = await memberFlag(sql, shop.id, required(f, 'email'));
      await updateMember(sql, shop.id, userId!, {
        status: oneOf(f, 'status', ['working', 'disabled', 'left'] as const satisfies readonly MemberStatus[]),
        locked: booleanFlag(f, 'locked', ['true', 'false']),
        password: f.password,
      });
      return { id: userId, updated: true };
    },
  },
  'app:create': {
    usage: '--shop S --name N --permissions p1,p2 [--pages all|id1,id2] [--as EMAIL]',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const actor = await memberFlag(sql, shop.id, f.as);
      const created = await withShop(sql, shop.id, (tx) =>
        createApplication(
          tx,
          shop.id,
          { name: required(f, 'name'), permissions: list(required(f, 'permissions')), pages: pagesFlag(f) },
          actor,
        ),
      );
      return { applicationId: created.applicationId, keyId: created.keyId, key: created.key };
    },
  },
  'app:update': {
    usage: '--app ID [--name N] [--permissions p1,p2] [--pages all|id1,id2] [--as EMAIL]',
    run: async (sql, f) => {
      const { applicationId, shopId, actor } = await applicationFlag(sql, f);
      await withShop(sql, shopId, (tx) =>
        updateApplication(
          tx,
          applicationId,
          { name: f.name, permissions: f.permissions === undefined ? undefined : list(f.permissions), pages: pagesFlag(f) },
          actor,
        ),
      );
      return { applicationId, updated: true };
    },
  },
  'key:create': {
    usage: '--app ID [--as EMAIL]',
    run: async (sql, f) => {
      const { applicationId, shopId, actor } = await applicationFlag(sql, f);
      return withShop(sql, shopId, (tx) => createKey(tx, applicationId, actor));
    },
  },
  'key:rotate': {
    usage: '--app ID [--overlap-hours 0-72] [--as EMAIL]',
    run: async (sql, f) => {
      const { applicationId, shopId, actor } = await applicationFlag(sql, f);
      const overlap = f['overlap-hours'] === undefined ? undefined : integerFlag('overlap-hours', f['overlap-hours'], 0, 72);
      return withShop(sql, shopId, (tx) => rotateKey(tx, applicationId, actor, overlap));
    },
  },
  'key:revoke': {
    usage: '--key ID [--as EMAIL]',
    run: async (sql, f) => {
      const keyId = required(f, 'key');
      const shopId = await shopOwning(sql, 'api_key', keyId);
      const actor = await memberFlag(sql, shopId, f.as);
      return withShop(sql, shopId, (tx) => revokeKey(tx, keyId, actor));
    },
  },
  'page:create': {
    usage: '--shop S --name N',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      return withShop(sql, shop.id, (tx) => createPage(tx, shop.id, required(f, 'name')));
    },
  },
};

/** The application `--app ID` names, its shop, and who acts (`--as EMAIL`). */
async function applicationFlag(sql: Sql, flags: Flags): Promise<{ applicationId: string; shopId: string; actor: Actor }> {
  const applicationId = required(flags, 'app');
  const shopId = await shopOwning(sql, 'application', applicationId);
  return { applicationId, shopId, actor: await memberFlag(sql, shopId, flags.as) };
}

function pagesFlag(flags: Flags): 'all' | string[] | undefined {
  if (flags.pages === undefined) return undefined;
  return flags.pages === 'all' ? 'all' : list(flags.pages);
}
