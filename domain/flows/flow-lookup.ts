import type { Sql } from '../../db/client.js';
import { isUuid, Problem } from '../kernel/index.js';

/** The shop owning a flow, found by its id alone (operators' CLI; the `app.flow_id` policy of flows). */
export async function shopOfFlow(sql: Sql, flowId: string): Promise<string> {
  if (!isUuid(flowId)) throw new Problem('validation-failed', `${flowId} is not a valid id`);
  const [row] = await sql.begin(async (tx) => {
    await tx`select set_config('app.flow_id', ${flowId}, true)`;
    return tx<{ shopId: string }[]>`select shop_id from flows where id = ${flowId}`;
  });
  if (!row) throw new Problem('not-found', `no flow ${flowId}`);
  return row.shopId;
}
