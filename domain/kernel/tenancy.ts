import type { Sql } from '../../db/client.js';
import type postgres from 'postgres';

export type Tx = postgres.TransactionSql;

/**
 * Runs `work` in one transaction that first sets `app.shop_id`: row-level security then shows
 * exactly that shop's rows, so another shop's record id is simply not found.
 */
export function withShop<T>(sql: Sql, shopId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return sql.begin(async (tx) => {
    await tx`select set_config('app.shop_id', ${shopId}, true)`;
    return work(tx);
  }) as Promise<T>;
}
