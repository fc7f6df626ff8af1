import type { Sql } from '../db/client.js';
import { createKey, MAX_APPLICATIONS_PER_SHOP, rotateKey } from '../domain/access/index.js';
import { withShop } from '../domain/kernel/index.js';
import { addApplication } from '../scripts/fixtures/index.js';

/**
 * Twenty fresh keys of one shop (ten applications, two keys each): the per-key limit of 600 a
 * minute would otherwise cap a load test at 10 requests a second.
 */
export async function freshBenchKeys(sql: Sql, shopId: string): Promise<string[]> {
  return withShop(sql, shopId, async (tx) => {
    const applications = await tx<{ id: string }[]>`select id from applications order by created_at`;
    const keys: string[] = [];
    for (let index = applications.length; index < MAX_APPLICATIONS_PER_SHOP; index += 1) {
      const created = await addApplication(tx, shopId, { name: `Bench ${index}` });
      applications.push({ id: created.applicationId });
    }
    for (const application of applications) {
      keys.push((await rotateKey(tx, application.id, null, 0)).key, (await createKey(tx, application.id, null)).key);
    }
    return keys;
  });
}
