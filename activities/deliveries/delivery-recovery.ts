import type { Sql } from '../../db/client.js';
import { nextFailedDeliveries, sealDeliveryRequest, type RecoveryCursor, type RecoveryWindow } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/index.js';
import type { WebhookAttemptInput } from './delivery-activities.js';

/**
 * What a recovery batch (one flow's failed deliveries since a time, resent) is started with, sealed by
 * the admin API for the batch's workflow id: any workflow of the namespace may schedule an activity on
 * Shopflow's task queue, and this one seals delivery requests.
 */
export interface RecoveryRequest extends RecoveryWindow {
  shopId: string;
  /** Resends a minute, within RECOVERY_PACE.maxPerMinute (checked by the API). */
  perMinute: number;
  /** How many failed deliveries the window held when the batch started. */
  found: number;
  about: { shopSlug: string; flowName: string };
  seal: string;
}

/** The next page of a batch: the resends, sealed for their delivery workflows, how many were looked at, and where the next page starts. */
export interface RecoveryPage {
  resends: WebhookAttemptInput[];
  passed: number;
  cursor: RecoveryCursor | null;
}

export function createRecoveryActivities(deps: { sql: Sql; sealKey: string }) {
  return {
    /**
     * Reads the next `limit` failed deliveries of the batch's window after `after`, each sealed for
     * the run it names, `delivery:<flowId>:<eventId>` (its delivery workflow sends exactly what a
     * resend sends). Read just
     * before they are started, so one delivered by hand since is no longer among them.
     */
    async nextResends(request: RecoveryRequest, after: RecoveryCursor | null, limit: number): Promise<RecoveryPage> {
      const window = { flowId: request.flowId, since: request.since, until: request.until };
      const page = await withShop(deps.sql, request.shopId, (tx) => nextFailedDeliveries(tx, window, after, limit));
      return {
        resends: page.requests.map((resend) => sealDeliveryRequest(deps.sealKey, resend)),
        passed: page.passed,
        cursor: page.cursor,
      };
    },
  };
}

export type RecoveryActivities = ReturnType<typeof createRecoveryActivities>;
