import type { Sql } from '../../db/client.js';

const DEMO_SEED_LOCK = 'shopflow:demo-seed';

/**
 * Runs `seed` holding a session advisory lock on a connection of its own. Every `npm run dev` on one
 * PostgreSQL seeds the same demo shop, and each points the shop's carrier connections at its own
 * simulators: two starting at once would otherwise remove the connection the other is reading.
 * One after the other, the run that seeds last keeps the shop's carriers.
 */
export async function oneSeedAtATime<T>(sql: Sql, seed: () => Promise<T>): Promise<T> {
  const held = await sql.reserve();
  try {
    await held`select pg_advisory_lock(hashtextextended(${DEMO_SEED_LOCK}, 0))`;
    return await seed();
  } finally {
    await held`select pg_advisory_unlock(hashtextextended(${DEMO_SEED_LOCK}, 0))`.catch(() => undefined);
    held.release();
  }
}
