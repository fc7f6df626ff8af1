import type { Sql } from '../../db/client.js';
import { purgeRequestGuards, type RequestGuardPurge } from '../../domain/access/index.js';
import { purgeOldAttempts } from '../../domain/flows/index.js';
import { asHousekeeping } from '../../domain/kernel/index.js';

export interface HousekeepingInput {
  /** Delivery attempts older than this many days go (settings `DELIVERY_ATTEMPT_RETENTION_DAYS`). */
  attemptRetentionDays: number;
}

export interface HousekeepingResult extends RequestGuardPurge {
  deliveryAttempts: number;
}

/** The purge the housekeeping schedule runs: one transaction, rows of every shop past their use. */
export function createHousekeepingActivities(deps: { sql: Sql }) {
  return {
    async purgeExpired(input: HousekeepingInput): Promise<HousekeepingResult> {
      return asHousekeeping(deps.sql, async (tx) => ({
        ...(await purgeRequestGuards(tx)),
        deliveryAttempts: await purgeOldAttempts(tx, input.attemptRetentionDays),
      }));
    },
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
