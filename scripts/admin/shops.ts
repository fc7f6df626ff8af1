import { createShop, updateShopSettings } from '../../domain/access/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { changeShopStatusMatrix, isOrderStatus, ORDER_STATUSES, type Transition } from '../../domain/orders/index.js';
import { booleanFlag, integerFlag, list, memberFlag, oneOf, required, shopFlag, UsageError, type Command, type Flags } from './flags.js';

/** Shops and their settings (access), and a shop's order status matrix (orders). */
export const shopCommands: Record<string, Command> = {
  'shop:create': {
    usage: '--slug S --name N',
    run: (sql, f) => createShop(sql, { slug: required(f, 'slug'), name: required(f, 'name') }),
  },
  'shop:set': {
    usage:
      '--shop S [--plan active|expired] [--suspended true|false] [--automation on|off] [--recompute-ceiling-minutes 0-10] [--lock-prices true|false]',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const ceiling = f['recompute-ceiling-minutes'];
      await updateShopSettings(sql, shop.id, {
        plan: oneOf(f, 'plan', ['active', 'expired'] as const),
        suspended: booleanFlag(f, 'suspended', ['true', 'false']),
        automationEnabled: booleanFlag(f, 'automation', ['on', 'off']),
        recomputeCeilingSeconds: ceiling === undefined ? undefined : integerFlag('recompute-ceiling-minutes', ceiling, 0, 10) * 60,
        lockPrices: booleanFlag(f, 'lock-prices', ['true', 'false']),
      });
      return { id: shop.id, slug: shop.slug, updated: true };
    },
  },
  'shop:order-statuses': {
    usage: '--shop S [--remove FROM:TO,FROM:TO] [--restore FROM:TO,FROM:TO] [--as EMAIL]',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const actor = await memberFlag(sql, shop.id, f.as);
      const matrix = await withShop(sql, shop.id, (tx) =>
        changeShopStatusMatrix(tx, shop.id, { remove: transitionsFlag(f, 'remove'), restore: transitionsFlag(f, 'restore') }, actor),
      );
      return { shopId: shop.id, matrix };
    },
  },
};

/** `from:to` pairs of order statuses, comma-separated. */
function transitionsFlag(flags: Flags, name: string): Transition[] {
  return list(flags[name] ?? '').map((pair) => {
    const [from, to, extra] = pair.split(':');
    if (extra !== undefined || !isOrderStatus(from) || !isOrderStatus(to)) {
      throw new UsageError(`--${name}: ${pair} is not FROM:TO with order statuses (${ORDER_STATUSES.join(', ')})`);
    }
    return [from, to] as const;
  });
}
