import type { Tx } from '../kernel/index.js';

export interface ShopLogEntry {
  shopId: string;
  /** The acting person; null when a platform operator acted through the admin CLI. */
  actorUserId: string | null;
  actorApplicationId?: string | null;
  action: string;
  subjectType?: string;
  subjectId?: string;
  details?: Record<string, unknown>;
}

/** Who did what, when: written in the transaction of the change itself. */
export async function writeShopLog(tx: Tx, entry: ShopLogEntry): Promise<void> {
  await writeShopLogs(tx, [entry]);
}

/** Several entries in one statement (a relay skipping an event for many flows writes them at once). */
export async function writeShopLogs(tx: Tx, entries: readonly ShopLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const column = <T>(pick: (entry: ShopLogEntry) => T) => entries.map(pick);
  await tx`
    insert into shop_log (shop_id, actor_user_id, actor_application_id, action, subject_type, subject_id, details)
    select shop_id, actor_user_id, actor_application_id, action, subject_type, subject_id, details::jsonb from unnest(
      ${column((entry) => entry.shopId)}::uuid[], ${column((entry) => entry.actorUserId)}::uuid[],
      ${column((entry) => entry.actorApplicationId ?? null)}::uuid[], ${column((entry) => entry.action)}::text[],
      ${column((entry) => entry.subjectType ?? null)}::text[], ${column((entry) => entry.subjectId ?? null)}::text[],
      ${column((entry) => JSON.stringify(entry.details ?? {}))}::text[]
    ) as entry (shop_id, actor_user_id, actor_application_id, action, subject_type, subject_id, details)`;
}
