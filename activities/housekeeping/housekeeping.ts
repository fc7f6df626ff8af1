import type { Sql } from '../../db/client.js';
import type { Retention } from '../../config/settings.js';
import { purgeRequestGuards, type RequestGuardPurge } from '../../domain/access/index.js';
import { purgeOldEvents } from '../../domain/events/index.js';
import { purgeOldAttempts, purgeOldDeliveries, rollUpFlowHealth, shopsWithFlows } from '../../domain/flows/index.js';
import { asHousekeeping, withShop } from '../../domain/kernel/index.js';

/**
 * Rows of each table one pass deletes at most: a pass holds its locks briefly, and a backlog (the
 * first pass after an upgrade, a shorter retention) goes over the next passes, 5 minutes apart.
 */
export const PURGE_BATCH = 10_000;

export interface HousekeepingResult extends RequestGuardPurge {
  deliveryAttempts: number;
  deliveries: number;
  events: number;
}

/**
 * The purge the housekeeping schedule runs: one transaction, rows of every shop past their use. Its
 * bounds are the worker's settings: anyone who reaches the Temporal frontend can start the workflow,
 * so nothing a start passes reaches the purge (docs/security.md).
 */
export function createHousekeepingActivities(deps: { sql: Sql; retention: Retention }) {
  return {
    async purgeExpired(): Promise<HousekeepingResult> {
      const { deliveryDays, eventDays } = deps.retention;
      return asHousekeeping(deps.sql, async (tx) => ({
        ...(await purgeRequestGuards(tx)),
        deliveryAttempts: await purgeOldAttempts(tx, deliveryDays, PURGE_BATCH),
        // Deliveries before events: a failed delivery that goes frees its event in the same pass.
        deliveries: await purgeOldDeliveries(tx, deliveryDays, PURGE_BATCH),
        events: await purgeOldEvents(tx, eventDays, PURGE_BATCH),
      }));
    },
    /** Each shop's flow health summed up to five minutes ago (domain/flows/flow-health.ts), one transaction a shop. */
    async rollUpFlowHealth(): Promise<{ shops: number }> {
      const shops = await asHousekeeping(deps.sql, shopsWithFlows);
      for (const shopId of shops) await withShop(deps.sql, shopId, rollUpFlowHealth);
      return { shops: shops.length };
    },
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
