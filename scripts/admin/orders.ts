import { isUuid, withShop } from '../../domain/kernel/index.js';
import { recordReturn, reviewReturn } from '../../domain/orders/index.js';
import { booleanFlag, fail, list, required, shopFlag, UsageError, uuidFlag, type Command } from './flags.js';

const QUANTITY = /^\d{1,12}(\.\d{1,3})?$/;

/** Returns of orders (orders). */
export const orderCommands: Record<string, Command> = {
  'order:return': {
    usage: '--shop S --order ID --lines LINE:QTY,LINE:QTY [--exchange] [--credit-order ID]',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const orderId = uuidFlag(f, 'order');
      const lines = list(required(f, 'lines')).map((pair) => {
        const [lineId, quantity, extra] = pair.split(':');
        if (extra !== undefined || !isUuid(lineId) || !QUANTITY.test(quantity ?? '')) {
          throw new UsageError(`--lines: ${pair} is not LINE:QTY (a line id, a quantity with at most three decimals)`);
        }
        return { lineId: lineId!, quantity: quantity! };
      });
      const creditOrderId = f['credit-order'] === undefined ? undefined : uuidFlag(f, 'credit-order');
      const { returnId, order } = await withShop(sql, shop.id, (tx) =>
        recordReturn(tx, shop.id, orderId, { lines, exchange: f.exchange !== undefined, creditOrderId }),
      );
      return { returnId, orderId, returnedAmount: order.returnedAmount, exchangeReturn: order.exchangeReturn };
    },
  },
  'order:return-review': {
    usage: '--shop S --return ID --exchange true|false',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const returnId = uuidFlag(f, 'return');
      const exchange = booleanFlag(f, 'exchange', ['true', 'false']) ?? fail('--exchange is required');
      const order = await withShop(sql, shop.id, (tx) => reviewReturn(tx, shop.id, returnId, exchange));
      return { returnId, orderId: order.id, exchangeReturn: order.exchangeReturn };
    },
  },
};
