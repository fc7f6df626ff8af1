import type { Sql } from '../../db/client.js';
import { shopOwning } from '../access/index.js';
import { isUuid, Problem } from '../kernel/index.js';

/**
 * The shop owning an application, key or flow, found by its id alone (operators' CLI): applications
 * and keys are the access module's lookup, flows this module's (the `app.flow_id` policy of flows).
 */
export async function shopOf(sql: Sql, kind: 'application' | 'api_key' | 'flow', id: string): Promise<string> {
  if (kind !== 'flow') return shopOwning(sql, kind, id);
  if (!isUuid(id)) throw new Problem('validation-failed', `${id} is not a valid id`);
  const [row] = await sql.begin(async (tx) => {
    await tx`select set_config('app.flow_id', ${id}, true)`;
    return tx<{ shopId: string }[]>`select shop_id from flows where id = ${id}`;
  });
  if (!row) throw new Problem('not-found', `no flow ${id}`);
  return row.shopId;
}
