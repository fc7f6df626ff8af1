import type { ShipmentState } from '../../domain/shipments/index.js';

/**
 * Carrier A's (GHN's) status strings → the spec's shipment states: the one table of the adapter.
 * Pending until picked up, delivering from pick-up to the doorstep, then each ending. Null only
 * where the code never changes the state (the courier on the way to pick up: still pending). Codes
 * that may follow `exception` carry their state, so a shipment leaves `exception` when work resumes.
 */
export const carrierAStates = {
  ready_to_pick: 'pending',
  picking: null,
  picked: 'delivering',
  storing: 'delivering',
  transporting: 'delivering',
  sorting: 'delivering',
  delivering: 'delivering',
  delivered: 'delivered',
  delivery_fail: 'delivery_failed',
  // Delivery is retried for a day or two before the goods go back: still a failed delivery.
  waiting_to_return: 'delivery_failed',
  return: 'returning',
  return_transporting: 'returning',
  returning: 'returning',
  returned: 'returned',
  cancel: 'cancelled',
  exception: 'exception',
  damage: 'damaged',
  lost: 'lost',
} as const satisfies Record<string, ShipmentState | null>;

export type CarrierAStatusCode = keyof typeof carrierAStates;

/** The state a status string tells; null for a code that does not change it, or one we do not know. */
export function carrierAState(code: string): ShipmentState | null {
  return Object.hasOwn(carrierAStates, code) ? carrierAStates[code as CarrierAStatusCode] : null;
}
