import type { Sql } from '../db/client.js';
import { step } from '../scripts/bootstrap/progress.js';

/**
 * VACUUM (ANALYZE) of freshly seeded tables, as their owner: statistics for the planner, and the
 * visibility map and hint bits written now rather than by the first benchmark reads (which, right
 * after seeding, ran ten times slower). The application role may not vacuum, so `owner` does.
 */
export async function settle(owner: Sql, tables: readonly string[]): Promise<void> {
  await step(`vacuum (analyze) ${tables.join(', ')}`, async () => {
    for (const table of tables) await owner`vacuum (analyze) ${owner(table)}`;
  });
}
