import type { Sql } from '../../db/client.js';
import type postgres from 'postgres';
import { pipelined } from './round-trips.js';

export type Tx = postgres.TransactionSql;

/**
 * Runs `work` in one transaction that first sets `app.shop_id`: row-level security then shows
 * exactly that shop's rows, so another shop's record id is simply not found.
 */
export function withShop<T>(sql: Sql, shopId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return sql.begin((tx) => enterShop(tx, shopId, work)) as Promise<T>;
}

/**
 * Sets `app.shop_id` for the rest of the open transaction `tx`, then runs `work`, in one round trip
 * (`pipelined`): the setting is in place before any row is read.
 */
export function enterShop<T>(tx: Tx, shopId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return pipelined(tx`select set_config('app.shop_id', ${shopId}, true)`, () => work(tx));
}
