/**
 * The failure types of the carrier activities (activities/shipments/carrier-calls.ts), one per
 * kind of carrier error, so the shipment workflows branch on them. The workflows restate them (workflow
 * code imports no activity code), typed by this constant so the two cannot drift. Only `unavailable` is retried (create and cancel are idempotent at the carriers).
 */
export const CARRIER_FAILURE_TYPES = {
  rejected: 'CarrierRejected',
  unavailable: 'CarrierUnavailable',
  unauthorized: 'CarrierUnauthorized',
  'not-cancellable': 'CarrierNotCancellable',
  'not-found': 'CarrierOrderNotFound',
} as const;

/**
 * The failure type of a shipment workflow's input that is not sealed by Shopflow for that workflow
 * (activities/sealed-activities.ts): nothing is called, nothing written, and the run fails.
 */
export const UNSEALED_INPUT = 'UnsealedWorkflowInput';
