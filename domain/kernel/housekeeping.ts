import type { Sql } from '../../db/client.js';
import type { Tx } from './tenancy.js';

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
