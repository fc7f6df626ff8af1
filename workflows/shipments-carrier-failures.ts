/**
 * The failure types of the carrier activities (activities/shipments/carrier-calls.ts), one per
 * kind of carrier error, so the shipment workflows branch on them. A plain module, so workflow code
 * may import it. Only `unavailable` is retried (create and cancel are idempotent at the carriers).
 */
export const CARRIER_FAILURE_TYPES = {
  rejected: 'CarrierRejected',
  unavailable: 'CarrierUnavailable',
  unauthorized: 'CarrierUnauthorized',
  'not-cancellable': 'CarrierNotCancellable',
  'not-found': 'CarrierOrderNotFound',
} as const;
