import type { Sql } from '../../db/client.js';
import type postgres from 'postgres';

export type Tx = postgres.TransactionSql;

/**
 * Runs `work` in one transaction that first sets `app.shop_id`: row-level security then shows
 * exactly that shop's rows, so another shop's record id is simply not found.
 */
export function withShop<T>(sql: Sql, shopId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return sql.begin((tx) => inShop(tx, shopId, work)) as Promise<T>;
}

/**
 * Sets `app.shop_id` for the rest of the open transaction `tx`, then runs `work`, in one round trip
 * (`pipelined`): the setting is in place before any row is read.
 */
export function inShop<T>(tx: Tx, shopId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return pipelined(tx`select set_config('app.shop_id', ${shopId}, true)`, () => work(tx));
}

/**
 * Sends `first` without waiting for its answer, then runs `next` on the same connection: PostgreSQL
 * runs its statements in order, so `next` sees what `first` wrote or locked, and a round trip is
 * saved. Should `first` fail, the transaction is aborted and `next` fails too.
 */
export async function pipelined<T>(first: postgres.PendingQuery<postgres.Row[]>, next: () => Promise<T>): Promise<T> {
  const [, result] = await allAnswered([first.execute(), next()] as const);
  return result;
}

/**
 * The results of work sent together in one transaction, once every part has finished: a failure is
 * thrown only then, the first in `work`'s order. Throwing at the first failure would end the
 * transaction while another part may still send statements, which would then run after it, outside
 * any transaction (postgres.js hands the connection back to the pool at its end).
 */
export async function allAnswered<const T extends readonly unknown[]>(work: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(work);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/**
 * Runs `work` in one transaction declared as housekeeping (`app.housekeeping`): no shop is set, and
 * the housekeeping policies show, across shops, only rows already past their use
 * (db/migrations/20261124000001_housekeeping.sql).
 */
export function asHousekeeping<T>(sql: Sql, work: (tx: Tx) => Promise<T>): Promise<T> {
  return sql.begin(async (tx) => {
    await tx`select set_config('app.housekeeping', 'on', true)`;
    return work(tx);
  }) as Promise<T>;
}

/**
 * A housekeeping purge of one table (in an `asHousekeeping` transaction, whose policies decide which
 * rows it may see): at most `limit` rows whose `timeColumn` is older than `days` (at least one day,
 * the policies' floor), the oldest first. Answers how many went.
 */
export async function purgeOlderThan(tx: Tx, table: string, timeColumn: string, days: number, limit: number): Promise<number> {
  const purged = await tx`
    delete from ${tx(table)} where id in (
      select id from ${tx(table)} where ${tx(timeColumn)} < now() - make_interval(days => ${Math.max(1, days)})
      order by ${tx(timeColumn)} limit ${limit})`;
  return purged.count;
}
